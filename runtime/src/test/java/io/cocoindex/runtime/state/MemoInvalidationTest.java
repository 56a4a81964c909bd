package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.StatePaths.path;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.ThrowawaySchema;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StateWrite.InvalidateMemo}: a run about to change a state below a memoized component
 * forgets the component's memo. On the shared store the memo becomes the mark of the run's
 * version less one, which keeps out the memo of an earlier run written later (one another
 * worker held back for its sweep), lets the run's own in, and outlives a record written without
 * a memo.
 */
class MemoInvalidationTest {
  private static final String APP = "app";
  private static final byte[] COMPONENT = path("component", "m");
  private static final byte[] MEMO_A = fingerprint(1);
  private static final byte[] MEMO_B = fingerprint(2);

  @Nested
  class OnTheSharedStore {
    @RegisterExtension final ThrowawaySchema schema = new ThrowawaySchema("t_");

    private PostgresStateStore open() {
      return schema.closeLast(PostgresStateStore.open(schema.url()));
    }

    @Test
    void theMarkKeepsOutTheMemosOfEarlierRunsAndLetsTheRunsOwnIn() throws Exception {
      StateStore s = open();
      write(s, put(MEMO_A, 3));
      write(s, new StateWrite.InvalidateMemo(COMPONENT, 5));
      assertThat(memo(s)).isEqualTo(JdbcStateTables.forgottenMemoMark(4));

      write(s, put(MEMO_B, 4)); // an earlier run's memo, held back for its sweep
      assertThat(memo(s)).isEqualTo(JdbcStateTables.forgottenMemoMark(4));
      write(s, put(MEMO_B, 5));
      assertThat(memo(s)).isEqualTo(MEMO_B);
    }

    @Test
    void aRecordWithoutAMemoKeepsTheMark() throws Exception {
      StateStore s = open();
      write(s, put(MEMO_A, 3));
      write(s, new StateWrite.InvalidateMemo(COMPONENT, 5));
      write(s, put(null, 5)); // the run's own commit, its subtree unhealthy
      write(s, put(MEMO_B, 4));
      assertThat(memo(s)).isEqualTo(JdbcStateTables.forgottenMemoMark(4));
    }

    @Test
    void anEarlierRunsInvalidationLeavesANewerMarkAsItIs() throws Exception {
      StateStore s = open();
      write(s, new StateWrite.InvalidateMemo(COMPONENT, 7));
      write(s, new StateWrite.InvalidateMemo(COMPONENT, 5));
      assertThat(memo(s)).isEqualTo(JdbcStateTables.forgottenMemoMark(6));
      write(s, put(MEMO_A, 6));
      assertThat(memo(s)).isEqualTo(JdbcStateTables.forgottenMemoMark(6));
    }

    @Test
    void aComponentWithoutARecordGetsOneHoldingTheMark() throws Exception {
      StateStore s = open();
      write(s, new StateWrite.InvalidateMemo(COMPONENT, 5));
      ComponentRecord r = s.component(APP, COMPONENT).orElseThrow();
      assertThat(r.memoFingerprint()).isEqualTo(JdbcStateTables.forgottenMemoMark(4));
      assertThat(r.stateCount()).isZero();
      write(s, put(MEMO_A, 4)); // the first record of an earlier run, written later
      assertThat(memo(s)).isEqualTo(JdbcStateTables.forgottenMemoMark(4));
    }
  }

  @Nested
  class OnTheEmbeddedStore {
    @TempDir Path dir;

    @Test
    void theMemoIsForgottenAndTheRestOfTheRecordStays() {
      try (SqliteStateStore s = SqliteStateStore.open(dir)) {
        write(s, put(MEMO_A, 3));
        write(s, new StateWrite.InvalidateMemo(COMPONENT, 5));
        ComponentRecord r = s.component(APP, COMPONENT).orElseThrow();
        assertThat(r.memoFingerprint()).isNull();
        assertThat(r.stateCount()).isEqualTo(2);
      }
    }

    @Test
    void aComponentWithoutARecordGetsNone() {
      try (SqliteStateStore s = SqliteStateStore.open(dir)) {
        write(s, new StateWrite.InvalidateMemo(COMPONENT, 5));
        assertThat(s.component(APP, COMPONENT)).isEmpty();
      }
    }
  }

  private static StateWrite put(byte[] memo, long runVersion) {
    return new StateWrite.PutComponent(
        new ComponentRecord(COMPONENT, memo, null, null, 2), runVersion);
  }

  private static void write(StateStore s, StateWrite w) {
    s.write(APP, List.of(w)).join();
  }

  private static byte[] memo(StateStore s) {
    return s.component(APP, COMPONENT).orElseThrow().memoFingerprint();
  }

  private static byte[] fingerprint(int fill) {
    byte[] b = new byte[io.cocoindex.Fingerprint.LENGTH];
    Arrays.fill(b, (byte) fill);
    return b;
  }
}
