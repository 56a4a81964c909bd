package io.cocoindex.samples.demo;

import java.nio.file.Path;

/**
 * Where the demo keeps its outputs: the state store, the SQLite index, the JSON summaries.
 *
 * @param home the workspace folder ({@code .cocoindex-demo} by default)
 */
record Workspace(Path home) {
  /** The summaries' folder, relative to the workspace (so it is keyed, and moves, with it). */
  static final Path SUMMARIES = Path.of("summaries");

  Path state() {
    return home.resolve("state");
  }

  Path index() {
    return home.resolve("index.sqlite");
  }

  /**
   * The file naming where the workspace's last update wrote its chunks ({@code sqlite} or {@code
   * postgres}): an update without that update's {@code --target} would not register the
   * connector that holds them, which leaves them behind, tracked, where no drop reaches them.
   */
  Path chunkTarget() {
    return home.resolve("chunk-target");
  }
}
