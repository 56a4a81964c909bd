package io.cocoindex.samples.localfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.App;
import io.cocoindex.testkit.CocoIndexExtension;
import io.cocoindex.testkit.CrashPoint;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test kit's crash points at every precommit and commit of runs that add, change and remove
 * files and whole subdirectories, with the source changing between the crash and the rerun
 * (directories removed by the crashed run declared again, and the reverse); each rerun must leave
 * exactly the declared files with their contents and no temporary sibling.
 */
class LocalFsCrashPointTest {
  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();
  @TempDir Path tmp;

  @Test
  void aCrashAnywhereInARunThenAnotherGenerationConverges() throws Exception {
    Path out = tmp.resolve("out");
    int crashes = 0;
    for (CrashPoint.Kind kind : CrashPoint.Kind.values()) {
      for (int gen = 1; gen <= 1; gen++) {
        for (int n = 1; ; n++) {
          App settled = coco.app("fs", KillWorld.of(11, gen).main(out));
          coco.update(settled);
          settled.close();
          CrashPoint point = new CrashPoint(kind, n);
          App crashing = coco.app("fs", KillWorld.of(11, gen + 1).main(out));
          boolean crashed = coco.updateCrashing(crashing, point);
          crashing.close();
          // Half the time the rerun declares what the crashed run did, else the next generation.
          KillWorld next = KillWorld.of(11, gen + 1 + n % 2);
          App rerun = coco.app("fs", next.main(out));
          coco.update(rerun);
          assertThat(DiskTree.of(out)).as("generation %d, %s", gen + 1, point)
              .isEqualTo(next.expected());
          assertThat(coco.pending(rerun)).as("generation %d, %s", gen + 1, point).isEmpty();
          rerun.close();
          if (!crashed) {
            break;
          }
          crashes++;
        }
      }
    }
    assertThat(crashes).as("crash points reached").isGreaterThan(15);
  }
}
