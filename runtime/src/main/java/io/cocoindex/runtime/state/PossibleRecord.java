package io.cocoindex.runtime.state;

/**
 * One tracking record that may describe a target state's current external form.
 *
 * @param version the run that wrote it
 * @param record the encoded tracking record, or {@code null} for "the state may not exist"
 */
public record PossibleRecord(long version, byte[] record) {
  /**
   * Whether this record says that the state may not exist.
   *
   * @return true if {@link #record} is null
   */
  public boolean isNone() {
    return record == null;
  }
}
