package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The writer thread starts with the first write, and a store closed without one stops cleanly. */
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
}
