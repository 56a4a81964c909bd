package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The writer thread starts with the first write, and a store closed without one stops cleanly;
 * a group whose transaction fails is committed batch by batch, so that a bad batch fails alone.
 * A write that races the close is failed, never left waiting.
 */
class GroupCommitterTest {
  private static final String WRITER = "group-committer-test-writer";
  private static final List<StateWrite> ONE_WRITE =
      List.of(new StateWrite.DeleteState(new byte[] {1}));

  private final List<Integer> committedGroups = new ArrayList<>();

  private GroupCommitter committer() {
    return new GroupCommitter(WRITER, group -> {
      synchronized (committedGroups) {
        committedGroups.add(group.size());
      }
    }, e -> new StateStoreException("commit failed", e));
  }

  private static boolean writerAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals(WRITER) && t.isAlive());
  }

  @Test
  void noWriterRunsUntilTheFirstWriteAndItCommitsThatWrite() throws Exception {
    try (GroupCommitter c = committer()) {
      assertThat(writerAlive()).isFalse();
      c.submit("app", List.of()).get(10, TimeUnit.SECONDS); // nothing to write: no writer
      assertThat(writerAlive()).isFalse();

      c.submit("app", ONE_WRITE).get(10, TimeUnit.SECONDS);

      assertThat(writerAlive()).isTrue();
      assertThat(committedGroups).containsExactly(1);
    }
    assertThat(writerAlive()).isFalse();
  }

  @Test
  void aWriterFailingWithAnErrorFailsWhatItHeldAndTellsNoRunOfALostTask() throws Exception {
    // The writer fails every write it held: nothing is lost, so no run of the process (another
    // app's, say) is stopped as if it were.
    List<Throwable> told = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.function.Consumer<Throwable> watcher = told::add;
    io.cocoindex.runtime.threads.SharedThreads.watchDeaths(watcher);
    GroupCommitter c = new GroupCommitter(WRITER, group -> {
      throw new AssertionError("test: the driver's assertion");
    }, e -> new StateStoreException("commit failed", e));
    try {
      assertThat(c.submit("app", ONE_WRITE)).failsWithin(10, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(AssertionError.class);
      // The next fails too: with the same error when queued before the writer stopped, as
      // closed after.
      assertThat(c.submit("app", ONE_WRITE)).failsWithin(10, TimeUnit.SECONDS);
      Thread.sleep(100); // the writer's task has ended by now
      assertThat(told).isEmpty();
    } finally {
      io.cocoindex.runtime.threads.SharedThreads.unwatchDeaths(watcher);
      c.close();
    }
  }

  /**
   * A writer interrupted (a driver that left its thread's interrupt flag set, say) stops at its
   * next wait for a write: the writes that come after it fail as on a closed store, rather than
   * wait for good in a queue no writer takes from.
   */
  @Test
  void aWriterInterruptedFailsTheWritesThatComeAfterItStopped() throws Exception {
    GroupCommitter c = new GroupCommitter(WRITER, group -> Thread.currentThread().interrupt(),
        e -> new StateStoreException("commit failed", e));
    try {
      assertThat(c.submit("app", ONE_WRITE)).succeedsWithin(10, TimeUnit.SECONDS);
      while (writerAlive()) {
        Thread.sleep(10); // until the writer has stopped: its thread is named for it meanwhile
      }
      assertThat(c.submit("app", ONE_WRITE)).failsWithin(10, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(StateStoreException.class);
    } finally {
      c.close();
    }
  }

  @Test
  void closedWithoutAWriteItStartsNoWriterAndRefusesLaterWrites() {
    GroupCommitter c = committer();
    c.close();

    CompletableFuture<Void> late = c.submit("app", ONE_WRITE);

    assertThat(late).failsWithin(10, TimeUnit.SECONDS)
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(StateStoreException.class)
        .withMessageContaining("closed");
    assertThat(writerAlive()).isFalse();
    assertThat(committedGroups).isEmpty();
  }

  @Test
  void closingCommitsWhatWasSubmittedBeforeIt() {
    GroupCommitter c = committer();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      writes.add(c.submit("app", ONE_WRITE));
    }

    c.close();

    assertThat(writes).allSatisfy(w -> assertThat(w).isCompleted());
    synchronized (committedGroups) {
      assertThat(committedGroups.stream().mapToInt(Integer::intValue).sum()).isEqualTo(5);
    }
  }

  @Test
  void aGroupWhoseTransactionFailsIsCommittedBatchByBatchAndOnlyTheBadBatchFails()
      throws Exception {
    CountDownLatch firstEntered = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    List<List<String>> committed = new ArrayList<>();
    GroupCommitter c = new GroupCommitter(WRITER, group -> {
      List<String> apps = group.stream().map(GroupCommitter.Batch::app).toList();
      if (apps.equals(List.of("first"))) {
        firstEntered.countDown();
        try {
          releaseFirst.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (apps.contains("bad")) {
        throw new java.sql.SQLException("constraint violated by bad");
      }
      synchronized (committed) {
        committed.add(apps);
      }
    }, e -> new StateStoreException("commit failed", e));
    try (c) {
      CompletableFuture<Void> first = c.submit("first", ONE_WRITE);
      firstEntered.await(10, TimeUnit.SECONDS);
      // Queued while the writer is busy: taken together as one group.
      CompletableFuture<Void> a = c.submit("a", ONE_WRITE);
      CompletableFuture<Void> bad = c.submit("bad", ONE_WRITE);
      CompletableFuture<Void> b = c.submit("b", ONE_WRITE);
      releaseFirst.countDown();

      assertThat(List.of(first, a, b))
          .allSatisfy(w -> assertThat(w).succeedsWithin(10, TimeUnit.SECONDS));
      assertThat(bad).failsWithin(10, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(StateStoreException.class)
          .withMessageContaining("commit failed")
          .withRootCauseInstanceOf(java.sql.SQLException.class);
    }
    // The group of three failed as a whole; then each went alone.
    assertThat(committed).containsExactly(List.of("first"), List.of("a"), List.of("b"));
  }

  /**
   * A write whose submit began before the close, and queues its batch only after the close has
   * stopped the writer, fails at once as closed: no writer would ever take it, and the run
   * waiting for it would wait forever.
   */
  @Test
  void aWriteQueuedAfterTheCloseStoppedTheWriterFailsAsClosed() {
    assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
      GroupCommitter c = committer();
      c.submit("app", ONE_WRITE).get(); // the writer runs
      CountDownLatch copying = new CountDownLatch(1);
      CountDownLatch closeReturned = new CountDownLatch(1);
      // submit copies a batch after it checks for a close and before it queues the batch: the
      // copy holds the submit there until the close has returned (the writer stopped).
      List<StateWrite> heldWhileCopied = new AbstractList<>() {
        @Override
        public StateWrite get(int index) {
          return ONE_WRITE.get(index);
        }

        @Override
        public int size() {
          return ONE_WRITE.size();
        }

        @Override
        public Object[] toArray() {
          copying.countDown();
          try {
            closeReturned.await();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          return super.toArray();
        }
      };
      FutureTask<CompletableFuture<Void>> racing =
          new FutureTask<>(() -> c.submit("late", heldWhileCopied));
      new Thread(racing, "group-committer-test-racing-submit").start();
      copying.await();

      c.close();
      closeReturned.countDown();
      CompletableFuture<Void> late = racing.get();

      assertThat(late).as("failed by the time submit returns").isCompletedExceptionally();
      assertThat(late).failsWithin(Duration.ZERO)
          .withThrowableOfType(ExecutionException.class)
          .havingCause().isInstanceOf(StateStoreException.class)
          .withMessage("the state store is closed");
      assertThat(writerAlive()).isFalse();
      synchronized (committedGroups) {
        assertThat(committedGroups).containsExactly(1);
      }
    });
  }
}
