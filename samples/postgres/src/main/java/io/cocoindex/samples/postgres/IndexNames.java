package io.cocoindex.samples.postgres;

import io.cocoindex.Fingerprint;

/**
 * The name an index has in the database. Index names are unique per schema, not per table, so a
 * declared name is scoped by its table, as CocoIndex names its indexes ({@code
 * <table>__<name>}): two tables may each declare {@code by_title}, an index moved between
 * tables is two names (the new one created, the old one dropped), and no declared name is the
 * primary key's {@code <table>_pkey}.
 */
final class IndexNames {
  /** PostgreSQL's identifier limit (NAMEDATALEN - 1 bytes; names here are ASCII). */
  static final int MAX_LENGTH = 63;

  private IndexNames() {}

  /**
   * {@code <table>__<name>}; when that is longer than PostgreSQL keeps, its first 54 characters
   * and 8 hex digits of its fingerprint, so that it is not silently truncated into another's.
   */
  static String of(String table, String name) {
    String full = table + "__" + name;
    if (full.length() <= MAX_LENGTH) {
      return full;
    }
    String hash = Fingerprint.ofString(table + "\0" + name).toString().substring(1, 9);
    return full.substring(0, MAX_LENGTH - 9) + "_" + hash;
  }
}
