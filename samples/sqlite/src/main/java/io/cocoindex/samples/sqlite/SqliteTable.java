package io.cocoindex.samples.sqlite;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStates;

/**
 * A declared table: declare its rows (instances of the schema's record) and its attachments.
 *
 * @param <T> the row record type
 */
public final class SqliteTable<T extends Record> {
  private final TableSchema<T> schema;
  private final TableTarget target;

  SqliteTable(TableSchema<T> schema, TableTarget target) {
    this.schema = schema;
    this.target = target;
  }

  /**
   * Declares one row, keyed by its primary-key components.
   *
   * @throws IllegalArgumentException when a primary-key component is null
   */
  public void declareRow(Ctx ctx, T row) {
    target.declareRow(ctx, schema.row(row));
  }

  /**
   * Declares an index; a changed spec recreates it. SQLite index names are database-wide, so it
   * is named by its table in the database: {@code <table>__<name>}, or its name when that starts
   * with the table's name and {@code _} ({@code docs_by_title} on {@code docs}); see {@link
   * IndexSpec}. It is keyed by that name case-folded, as SQLite compares names: renamed by case
   * only, it is recreated, never dropped.
   *
   * @throws IllegalArgumentException when the index has no columns or names one the table lacks
   */
  public void declareIndex(Ctx ctx, IndexSpec index) {
    SqlIdentifiers.checkObject("index", index.name());
    IndexHandler.check(schema.name(), schema.columns(), index);
    TargetStates.declareTargetState(ctx, target.children().<IndexSpec>attachment(ctx, "index")
        .targetState(SqlIdentifiers.fold(IndexNames.of(schema.name(), index.name())), index));
  }

  /** Declares setup SQL with its teardown (a view, a trigger). */
  public void declareSqlCommand(Ctx ctx, SqlCommand command) {
    SqlIdentifiers.check("SQL command", command.name());
    target.declareSqlCommand(ctx, command);
  }

  /**
   * Declares an FTS5 full-text index over text columns, keyed by its name case-folded.
   *
   * @throws IllegalArgumentException when the index cannot work: a name longer than {@value
   *     FullTextIndexHandler#MAX_NAME_LENGTH} characters (its triggers add 3), the name of its
   *     table, a column the table lacks or named {@code rank}, a table with a column named
   *     {@code rowid} (the index follows SQLite's rowid)
   */
  public void declareFullTextIndex(Ctx ctx, FullTextIndex index) {
    FullTextIndexHandler.check(schema.name(), schema.columns(), index);
    TargetStates.declareTargetState(ctx, target.children()
        .<FullTextIndex>attachment(ctx, "full_text_index")
        .targetState(SqlIdentifiers.fold(index.name()), index));
  }

  /** The schema the table was declared with. */
  public TableSchema<T> schema() {
    return schema;
  }
}
