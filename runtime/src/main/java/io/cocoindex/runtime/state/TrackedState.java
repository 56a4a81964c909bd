package io.cocoindex.runtime.state;

import java.util.List;

/**
 * The stored tracking of one target state path.
 *
 * @param path the encoded target-state path
 * @param owner the encoded path of the component that declared it last
 * @param records every record that may be current: one after a clean commit, several after an
 *     interrupted run
 * @param childGeneration for a container: bumped when its children's records become meaningless
 *     (DESTRUCTIVE invalidation, or the container was created anew)
 * @param childEpoch for a container: bumped when its children may have lost data (LOSSY, and on
 *     every generation bump)
 * @param parentGeneration the container's child generation when these records were written
 * @param parentEpoch the container's child epoch when these records were last confirmed
 */
public record TrackedState(
    byte[] path,
    byte[] owner,
    List<PossibleRecord> records,
    long childGeneration,
    long childEpoch,
    long parentGeneration,
    long parentEpoch) {

  /**
   * The state as given, its records copied into an unmodifiable list.
   *
   * @param path the encoded target-state path
   * @param owner the encoded path of the component that declared it last
   * @param records every record that may be current; none null
   * @param childGeneration for a container, its children's generation
   * @param childEpoch for a container, its children's epoch
   * @param parentGeneration the container's child generation when these records were written
   * @param parentEpoch the container's child epoch when these records were last confirmed
   * @throws NullPointerException if {@code records} or one of them is null
   */
  public TrackedState {
    records = List.copyOf(records);
  }

  /**
   * Whether "does not exist" is among the possible states.
   *
   * @return true if a record {@link PossibleRecord#isNone is none}
   */
  public boolean mayBeMissing() {
    for (PossibleRecord r : records) {
      if (r.isNone()) {
        return true;
      }
    }
    return false;
  }

  /**
   * This state with {@code newRecords} as its possible records.
   *
   * @param newRecords the records that may be current, copied
   * @return a new state, its path, owner and lineage as this one's
   */
  public TrackedState withRecords(List<PossibleRecord> newRecords) {
    return new TrackedState(
        path, owner, newRecords, childGeneration, childEpoch, parentGeneration, parentEpoch);
  }
}
