package io.cocoindex.runtime.state;

import io.cocoindex.Fingerprint;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A memo as a store that records settled runs keeps it: the input fingerprint followed by the
 * version of the run that recorded it. Such a store leaves the states a run applied unsettled
 * until the run is recorded as settled, at its very end; a memo recorded by a component's
 * commit before then must not hold as it is if the run dies first, or the next run would skip
 * the component and leave its states unsettled for good. So a stamped memo reads as the bare
 * fingerprint once its run is settled ({@link #resolve}), and stays stamped otherwise: it then
 * matches no input, and a memo check that finds it settles the subtree's states first (the
 * commit that wrote it came after every action below had been applied) and records it again
 * without the stamp ({@code io.cocoindex.runtime.plan.KilledRunMemos}).
 */
public final class MemoStamp {
  private static final int VERSION_BYTES = Long.BYTES;

  private MemoStamp() {}

  /**
   * {@code fingerprint} stamped with the run that records it.
   *
   * @param fingerprint the memo's input fingerprint ({@link Fingerprint#LENGTH} bytes)
   * @param runVersion the version of the run that records the memo
   * @return the fingerprint followed by the version, big-endian
   */
  public static byte[] stamped(byte[] fingerprint, long runVersion) {
    return ByteBuffer.allocate(fingerprint.length + VERSION_BYTES)
        .put(fingerprint).putLong(runVersion).array();
  }

  /**
   * Whether {@code memo}, as written, carries a run's stamp.
   *
   * @param memo a stored memo, or null for none
   * @return true if it is as long as a fingerprint and a version
   */
  public static boolean isStamped(byte[] memo) {
    return memo != null && memo.length == Fingerprint.LENGTH + VERSION_BYTES;
  }

  /**
   * {@code record} with its memo's stamp removed (written again once its run's states are).
   *
   * @param record a record whose memo {@link #isStamped}
   * @return a copy whose memo is the bare fingerprint
   */
  public static ComponentRecord unstamped(ComponentRecord record) {
    return new ComponentRecord(record.path(), fingerprintOf(record.memoFingerprint()),
        record.memoDependencies(), record.memoValues(), record.stateCount());
  }

  /**
   * The version of the run that stamped {@code memo}, which {@link #isStamped} must be.
   *
   * @param memo a stamped memo
   * @return the run version it carries
   */
  public static long runOf(byte[] memo) {
    return ByteBuffer.wrap(memo, Fingerprint.LENGTH, VERSION_BYTES).getLong();
  }

  /**
   * The input fingerprint of a stamped {@code memo}.
   *
   * @param memo a stamped memo
   * @return a copy of its first {@link Fingerprint#LENGTH} bytes
   */
  public static byte[] fingerprintOf(byte[] memo) {
    return Arrays.copyOf(memo, Fingerprint.LENGTH);
  }

  /**
   * The memo {@code stored} stands for: itself when it carries no stamp (a store that settles
   * state by state, or a record written before stamps), its fingerprint when its run is
   * settled, else itself, stamped: a run that never settled (killed, or failed and not settled
   * state by state), whose memo no input matches until its states are settled.
   */
  static byte[] resolve(byte[] stored, SettledRuns runs) {
    if (!isStamped(stored)) {
      return stored;
    }
    return runs.contains(runOf(stored)) ? fingerprintOf(stored) : stored;
  }
}
