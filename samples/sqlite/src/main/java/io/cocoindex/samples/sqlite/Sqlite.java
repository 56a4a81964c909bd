package io.cocoindex.samples.sqlite;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;

/**
 * SQLite tables as target states.
 *
 * <pre>{@code
 * static final ContextKey<SqliteDatabase> DB = ContextKey.of("index_db", SqliteDatabase.class);
 * record Chunk(String file, long ordinal, String text) {}
 *
 * App app = App.create("indexer", Environment.builder().dbPath(state)
 *     .provide(DB, SqliteDatabase.open(Path.of("index.sqlite"))).build(), ctx -> {
 *   Sqlite sqlite = Sqlite.register(ctx, DB);                        // once per run, in main
 *   SqliteTable<Chunk> chunks =
 *       sqlite.mountTable(ctx, TableSchema.of("chunks", Chunk.class, "file", "ordinal"));
 *   chunks.declareFullTextIndex(ctx, new FullTextIndex("chunks_fts", List.of("text")));
 *   for (File f : files) {
 *     ctx.mount(f.name(), c -> chunk(f).forEach(ch -> chunks.declareRow(c, ch)));
 *   }
 * });
 * }</pre>
 *
 * <p>One SQLite database per app (the provider name is fixed); target-state keys hold the
 * database's {@link ContextKey} name, never its path.
 */
public final class Sqlite {
  private final SqliteTables tables;
  private final String database;

  private Sqlite(SqliteTables tables, String database) {
    this.tables = tables;
    this.database = database;
  }

  /** Registers the SQLite table provider for this run, on the database {@code ctx.get(db)}. */
  public static Sqlite register(Ctx ctx, ContextKey<SqliteDatabase> db) {
    return new Sqlite(SqliteTables.register(ctx, new TableHandler(ctx.get(db))), db.name());
  }

  /** Declares the table in the calling component; declare its rows from the same component. */
  public <T extends Record> SqliteTable<T> declareTable(Ctx ctx, TableSchema<T> schema) {
    return new SqliteTable<>(schema, tables.declareTable(ctx, schema.spec(database)));
  }

  /** Creates or evolves the table now; its rows may be declared from any component. */
  public <T extends Record> SqliteTable<T> mountTable(Ctx ctx, TableSchema<T> schema) {
    return new SqliteTable<>(schema, tables.mountTable(ctx, schema.spec(database)));
  }
}
