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
   * @param ctx the context of the declaring component: the table's own for a table from {@link
   *     Sqlite#declareTable}, any for one from {@link Sqlite#mountTable}
   * @param row the row, one column value per record component
   * @throws IllegalArgumentException naming the column when a primary-key component is null or
   *     NaN (SQLite stores a NaN as NULL, so the row could not be found again by its key)
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
   * @param ctx the context of the declaring component, as for {@link #declareRow}
   * @param index the index's name, columns and uniqueness
   * @throws IllegalArgumentException when the index's name is not a valid identifier or is
   *     reserved ({@link SqlIdentifiers#checkObject}), or the index has no columns or names one
   *     the table lacks
   */
  public void declareIndex(Ctx ctx, IndexSpec index) {
    SqlIdentifiers.checkObject("index", index.name());
    IndexHandler.check(schema.name(), schema.columns(), index);
    TargetStates.declareTargetState(ctx, target.children().<IndexSpec>attachment(ctx, "index")
        .targetState(SqlIdentifiers.fold(IndexNames.of(schema.name(), index.name())), index));
  }

  /**
   * Declares setup SQL with its teardown (a view, a trigger).
   *
   * @param ctx the context of the declaring component, as for {@link #declareRow}
   * @param command the command's name, unique in the table, its setup and its teardown
   * @throws IllegalArgumentException when the command's name is not a valid identifier ({@link
   *     SqlIdentifiers#check})
   */
  public void declareSqlCommand(Ctx ctx, SqlCommand command) {
    SqlIdentifiers.check("SQL command", command.name());
    target.declareSqlCommand(ctx, command);
  }

  /**
   * Declares an FTS5 full-text index over text columns, keyed by its name case-folded.
   *
   * @param ctx the context of the declaring component, as for {@link #declareRow}
   * @param index the FTS5 table's name and the text columns it indexes
   * @throws IllegalArgumentException when the index cannot work: a name that is not a valid
   *     identifier or is reserved ({@link SqlIdentifiers#checkObject}), longer than {@value
   *     FullTextIndexHandler#MAX_NAME_LENGTH} characters (its triggers add 3) or the name of its
   *     table, no columns, a column the table lacks or named {@code rank}, a table with a column
   *     named {@code rowid} (the index follows SQLite's rowid)
   */
  public void declareFullTextIndex(Ctx ctx, FullTextIndex index) {
    FullTextIndexHandler.check(schema.name(), schema.columns(), index);
    TargetStates.declareTargetState(ctx, target.children()
        .<FullTextIndex>attachment(ctx, "full_text_index")
        .targetState(SqlIdentifiers.fold(index.name()), index));
  }

  /**
   * The schema the table was declared with.
   *
   * @return the schema passed to {@link Sqlite#declareTable} or {@link Sqlite#mountTable}
   */
  public TableSchema<T> schema() {
    return schema;
  }
}
