package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.ThreadPerTask;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateStoreException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run's scan of its component records: a component takes its record once the scan has passed
 * it, not only once the scan has ended; a component read alone is left out of what the scan
 * holds; a failed scan fails only the components it did not reach.
 */
class ComponentScanTest {
  private static final int RECORDS = 10;

  /** Events, in order: "read <n>" as the scan reads record n, "alone <n>" for a read by path. */
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  /** The scan stops before this record until {@link #resume} is counted down (-1: never). */
  private int pauseBefore = -1;
  /** The scan fails at this record (-1: never). */
  private int failAt = -1;
  private final CountDownLatch paused = new CountDownLatch(1);
  private final CountDownLatch resume = new CountDownLatch(1);

  private static TargetPath component(int n) {
    return TargetPath.of(List.of(StableKey.of("c" + n)));
  }

  private static ComponentRecord record(int n) {
    return new ComponentRecord(component(n).encoded(), null, null, null, n);
  }

  @TempDir Path dir;
  /** The embedded store, whose component records this test's scan stands in for. */
  private SqliteStateStore embedded;
  private StateStore store;

  @BeforeEach
  void open() {
    embedded = SqliteStateStore.open(dir);
    store = new RecordsOfTenComponents(embedded);
  }

  @AfterEach
  void close() {
    embedded.close();
  }

  /** Ten records, read in order as paused or failed above; a read by path noted and faked. */
  private final class RecordsOfTenComponents extends ForwardingStateStore {
    RecordsOfTenComponents(StateStore delegate) {
      super(delegate);
    }

    @Override
    public void componentsInOrder(String app, Consumer<ComponentRecord> visitor) {
      for (int n = 0; n < RECORDS; n++) {
        if (n == pauseBefore) {
          paused.countDown();
          await(resume);
        }
        if (n == failAt) {
          throw new StateStoreException("state store test.db: cannot read components: disk I/O");
        }
        events.add("read " + n);
        visitor.accept(record(n));
      }
    }

    @Override
    public Optional<ComponentRecord> component(String app, byte[] path) {
      events.add("alone " + TargetPath.decode(path));
      return Optional.of(new ComponentRecord(path, null, null, null, -1));
    }
  }

  /** Gives {@code f} time to complete if it would not wait, then says it has not. */
  private static void assertStillWaiting(CompletableFuture<?> f) {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    assertThat(f).isNotDone();
  }

  /** The thread running the scan {@link #scanPausedBefore} started. */
  private CompletableFuture<Void> scanning;

  /** A scan started on another thread ({@link #scanning}), paused before record {@code n}. */
  private ComponentScan scanPausedBefore(int n) {
    pauseBefore = n;
    ComponentScan scan = new ComponentScan(store, "app");
    scanning = CompletableFuture.runAsync(scan::run, ThreadPerTask.INSTANCE);
    await(paused);
    return scan;
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aComponentTheScanPassedTakesItsRecordBeforeTheScanEnds() {
    ComponentScan scan = scanPausedBefore(6);

    assertThat(scan.take(component(3))).map(ComponentRecord::stateCount).contains(3L);
    CompletableFuture<Optional<ComponentRecord>> later =
        CompletableFuture.supplyAsync(() -> scan.take(component(8)), ThreadPerTask.INSTANCE);
    assertStillWaiting(later); // for the scan to pass it

    resume.countDown();
    assertThat(later.join()).map(ComponentRecord::stateCount).contains(8L);
    scanning.join();
    // Handed out once: what the scan holds shrinks as components take theirs.
    assertThat(scan.notAskedFor()).extracting(ComponentRecord::stateCount)
        .containsExactlyInAnyOrder(0L, 1L, 2L, 4L, 5L, 6L, 7L, 9L);
  }

  @Test
  void aComponentReadAloneBeforeTheScanPassedItIsLeftOutOfWhatTheScanHolds() {
    ComponentScan scan = scanPausedBefore(2);

    assertThat(scan.takeAlone(component(5))).map(ComponentRecord::stateCount).contains(-1L);
    assertThat(scan.takeAlone(component(1))).map(ComponentRecord::stateCount).contains(1L);

    resume.countDown();
    scanning.join();
    assertThat(events).containsExactly("read 0", "read 1", "alone " + component(5), "read 2",
        "read 3", "read 4", "read 5", "read 6", "read 7", "read 8", "read 9");
    assertThat(scan.notAskedFor()).extracting(ComponentRecord::stateCount)
        .containsExactlyInAnyOrder(0L, 2L, 3L, 4L, 6L, 7L, 8L, 9L);
  }

  @Test
  void aComponentThatFindsTheScanNotBegunReadsItItself() {
    ComponentScan scan = new ComponentScan(store, "app");

    assertThat(scan.take(component(9))).map(ComponentRecord::stateCount).contains(9L);
    scan.run(); // the pool's turn comes later: the scan was made once

    assertThat(events).hasSize(RECORDS);
  }

  @Test
  void aFailedScanFailsTheComponentsItDidNotReachWithTheStoresError() {
    failAt = 4;
    ComponentScan scan = new ComponentScan(store, "app");
    scan.run();

    assertThat(scan.take(component(2))).map(ComponentRecord::stateCount).contains(2L);
    assertThatThrownBy(() -> scan.take(component(7)))
        .isInstanceOf(StateStoreException.class).hasMessageContaining("disk I/O");
    assertThatThrownBy(scan::notAskedFor).hasMessageContaining("disk I/O");
  }

  @Test
  void aClosedScanThatHadNotBegunNeverReads() {
    ComponentScan scan = new ComponentScan(store, "app");
    scan.close();
    scan.run();

    assertThat(events).isEmpty();
  }

  @Test
  void closingWaitsForAScanUnderWayThenLetsGoOfItsRecords() {
    ComponentScan scan = scanPausedBefore(3);
    CompletableFuture<Void> closing = CompletableFuture.runAsync(scan::close,
        ThreadPerTask.INSTANCE);
    assertStillWaiting(closing);

    resume.countDown();
    closing.join();
    assertThat(events).hasSize(RECORDS); // the run's reads end before it does
    assertThat(scan.notAskedFor()).isEmpty(); // nothing of them is held past the run
  }
}
