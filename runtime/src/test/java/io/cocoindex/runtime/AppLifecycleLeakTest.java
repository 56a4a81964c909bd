package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetStateProvider;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A service that opens its app for each run and closes it after (a scheduled job, a request
 * handler) must not leak: after many such rounds the process holds the threads and the open
 * files it held after the first few. Apps of one name share their component pool, which stays;
 * its workers serve the next app of the name. (On PostgreSQL the apps share one store, which the
 * application opened: what each app opens is what must not stay.)
 */
class AppLifecycleLeakTest extends EngineTestBase {
  final Rows rows = new Rows();

  @Test
  void openingUpdatingAndClosingAnAppManyTimesLeaksNoThreadAndNoFile() throws Exception {
    int[] version = {0};
    Runnable round = () -> {
      try (App app = App.create("service", environment(), ctx -> {
        TargetStateProvider<String> docs =
            registerRootTargetStatesProvider(ctx, "docs", rows.handler);
        for (int i = 0; i < 20; i++) {
          String key = "k" + i;
          ctx.mount(key, c -> declareTargetState(c, docs.targetState(key, "v" + version[0])));
        }
      })) {
        app.update();
        app.status();
      }
      version[0]++;
    };
    for (int i = 0; i < 10; i++) {
      round.run();
    }
    int threads = settledThreadCount();
    long files = openFiles();

    for (int i = 0; i < 150; i++) {
      round.run();
    }
    assertThat(rows.takeLog()).hasSize(160 * 20);
    assertThat(settledThreadCount()).as("live threads after 150 more rounds")
        .isLessThanOrEqualTo(threads + 2);
    assertThat(openFiles()).as("open files after 150 more rounds")
        .isLessThanOrEqualTo(files + 4);
  }

  /** Live threads, once those ending have ended (a closed app's store gives its writer back). */
  private static int settledThreadCount() throws InterruptedException {
    int count = Thread.activeCount();
    for (int i = 0; i < 50; i++) {
      Thread.sleep(20);
      int now = Thread.activeCount();
      if (now == count) {
        return now;
      }
      count = now;
    }
    return count;
  }

  private static long openFiles() {
    return ((com.sun.management.UnixOperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getOpenFileDescriptorCount();
  }
}
