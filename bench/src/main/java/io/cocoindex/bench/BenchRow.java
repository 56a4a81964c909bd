package io.cocoindex.bench;

/**
 * One row of the benchmark table {@code t}: four columns, primary key {@code id}.
 *
 * @param id the primary key
 * @param name a short text
 * @param amount a number that changes with the row's version
 * @param body about 80 characters of text
 */
public record BenchRow(long id, String name, long amount, String body) {

  /** The DDL the SQLite connector issues for this record (raw JDBC uses the same). */
  static final String DDL = "CREATE TABLE IF NOT EXISTS \"t\" (\"id\" INTEGER, \"name\" TEXT,"
      + " \"amount\" INTEGER, \"body\" TEXT, PRIMARY KEY (\"id\"))";
  static final String INSERT =
      "INSERT INTO \"t\" (\"id\", \"name\", \"amount\", \"body\") VALUES (?, ?, ?, ?)";
  static final String UPSERT = INSERT + " ON CONFLICT (\"id\") DO UPDATE SET"
      + " \"name\" = excluded.\"name\", \"amount\" = excluded.\"amount\","
      + " \"body\" = excluded.\"body\"";

  static BenchRow of(long id, int version) {
    return new BenchRow(id, "item-" + id, id * 31 + version,
        "row " + id + " at version " + version + ": the quick brown fox jumps over the lazy dog "
            + Long.toHexString(id * 0x9E3779B97F4A7C15L));
  }
}
