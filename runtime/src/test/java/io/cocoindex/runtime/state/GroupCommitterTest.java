package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The writer thread starts with the first write, and a store closed without one stops cleanly;
 * a group whose transaction fails is committed batch by batch, so that a bad batch fails alone.
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
}
