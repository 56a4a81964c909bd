package io.cocoindex.samples.demo;

import java.nio.file.Path;

/**
 * Where the demo keeps its outputs: the state store, the SQLite index, the JSON summaries.
 *
 * @param home the workspace folder ({@code .cocoindex-demo} by default)
 */
record Workspace(Path home) {
  Path state() {
    return home.resolve("state");
  }

  Path index() {
    return home.resolve("index.sqlite");
  }

  Path summaries() {
    return home.resolve("summaries");
  }
}
