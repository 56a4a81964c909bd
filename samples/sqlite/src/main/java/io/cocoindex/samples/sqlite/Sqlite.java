package io.cocoindex.samples.sqlite;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.TargetStates;
import java.util.List;
import java.util.Objects;

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
 * <p>Several databases in one app: register once, then {@code sqlite.database(OTHER_DB)} declares
 * tables in another provided database through the same provider. A table's key holds the name of
 * its database's {@link ContextKey} (never a path) and its name case-folded, as SQLite compares
 * names; every action goes to the database its key names, resolved from the environment. A
 * table moved to another database is created there and dropped from the old one, which must
 * still be provided for that.
 *
 * <p>Several apps may write one database: each table, index and full-text index names the app
 * that made it in its SQL ({@code Ctx.appName()}), each SQL command's record names the app that
 * set it up, and one another app made is an error naming that app, never taken over, changed or
 * dropped. Declare another app's table with {@link
 * TableSchema#userManaged} to write rows into it.
 */
public final class Sqlite {
  private final SqliteTables tables;
  private final String database;

  private Sqlite(SqliteTables tables, String database) {
    this.tables = tables;
    this.database = database;
  }

  /**
   * Registers the SQLite table provider for this run, declaring tables in the database {@code
   * ctx.get(db)}. Call it once per run; {@link #database} reaches the others.
   *
   * @param ctx the context of the app's main component
   * @param db the key the environment provides the database under; its name, not the file's
   *     path, identifies the database in each table's key
   * @return the provider, declaring tables in {@code db}'s database
   * @throws IllegalStateException when the environment does not provide {@code db}, or the
   *     provider is registered already in this run
   */
  public static Sqlite register(Ctx ctx, ContextKey<SqliteDatabase> db) {
    ctx.get(db); // fails here, naming the key, when the environment does not provide it
    SqliteTables tables;
    try {
      tables = SqliteTables.register(ctx, new TableHandler(ctx));
    } catch (IllegalStateException e) {
      throw new IllegalStateException(e.getMessage() + ". For SQLite, call Sqlite.register once"
          + " per run and reach other databases with sqlite.database(key)", e);
    }
    return new Sqlite(tables, db.name());
  }

  /**
   * The same provider, declaring tables in the database {@code db} provides: tables of several
   * databases in one app.
   *
   * @param db the key the environment provides the other database under
   * @return a view of this provider declaring tables in {@code db}'s database; this one is
   *     unchanged
   * @throws NullPointerException when {@code db} is null
   */
  public Sqlite database(ContextKey<SqliteDatabase> db) {
    return new Sqlite(tables, Objects.requireNonNull(db, "db").name());
  }

  /**
   * Declares the table in the calling component; declare its rows from the same component.
   *
   * @param ctx the context of the declaring component, which its rows, indexes, SQL commands and
   *     full-text indexes must be declared from too
   * @param schema the table's name, columns and primary key
   * @param <T> the row record type
   * @return the declared table, to declare its rows and attachments through
   */
  public <T extends Record> SqliteTable<T> declareTable(Ctx ctx, TableSchema<T> schema) {
    TableSpec spec = schema.spec(database);
    return new SqliteTable<>(schema, new TableTarget(TargetStates.<TableSpec, Row>
        declareTargetStateWithChild(ctx, tables.provider().targetState(key(spec), spec))));
  }

  /**
   * Creates or evolves the table now; its rows may be declared from any component.
   *
   * @param ctx the context of the declaring component; the table is committed in a foreground
   *     child component of it before this returns
   * @param schema the table's name, columns and primary key
   * @param <T> the row record type
   * @return the table, ready for its rows and attachments to be declared from any component
   */
  public <T extends Record> SqliteTable<T> mountTable(Ctx ctx, TableSchema<T> schema) {
    TableSpec spec = schema.spec(database);
    return new SqliteTable<>(schema, new TableTarget(TargetStates.<TableSpec, Row>mountTarget(
        ctx, tables.provider().targetState(key(spec), spec))));
  }

  /**
   * A table's key: its database's name and its own, case-folded as SQLite compares names, so a
   * table renamed by case only stays the same table (two keys would create one and drop it).
   */
  static List<String> key(TableSpec spec) {
    return List.of(spec.database(), SqlIdentifiers.fold(spec.name()));
  }
}
