package io.cocoindex.samples.localfs;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.testkit.ChildJvm;
import java.nio.file.Path;

/**
 * The child JVM of {@link LocalFsKillTest}: one update of {@code KillWorld.of(seed,
 * generation)}, whose start and end {@link ChildJvm#update} announces to the test.
 *
 * <p>Args: stateDir outDir seed generation.
 */
public final class LocalFsKillChild {
  public static void main(String[] args) throws Exception {
    KillWorld world = KillWorld.of(Long.parseLong(args[2]), Integer.parseInt(args[3]));
    try (App app = App.create("kill", Environment.builder().dbPath(Path.of(args[0])).build(),
        world.main(Path.of(args[1])))) {
      ChildJvm.update(app);
    }
  }
}
