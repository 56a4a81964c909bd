package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.ActionValue;
import java.util.List;

/**
 * Teardown of what may exist, then setup of what is declared, for one attachment of a table.
 *
 * @param table the table name
 * @param teardown SQL statements to run first (built from checked identifiers or given by the
 *     user's {@link SqlCommand})
 * @param setup SQL statements to run next
 * @param fullTextIndex for a full-text index, its FTS5 table: dropped between teardown and setup
 *     with its triggers if it is an index of {@code table}; when the action creates it, an index
 *     this connector made on another table is taken from it (the index moved here), and anything
 *     else holding the name is an error; null for other attachments
 * @param handOverTable for the removal of a full-text index that another table declares in the
 *     same run, that table: once the removal leaves the name free (the removed index had taken
 *     it), {@code handOverSetup} creates the index there again; null otherwise
 * @param handOverSetup the setup of the index on {@code handOverTable}
 * @param sqlCommand for a SQL command, its name: the teardown recorded for it in the database
 *     ({@link SqlCommandRecords}) runs first if the teardowns do not hold it, and the action is
 *     recorded there; null for other attachments
 * @param sqlCommandTeardown for a SQL command set up, the teardown to record; null for a removal
 * @param index for an index, its declared name; null for other attachments
 * @param indexDrops for an index, the names in the database of the indexes to drop first, each
 *     dropped only if it is an index of {@code table} (anything else under it is left alone)
 * @param indexName for an index to create, its name in the database ({@link IndexNames}): the
 *     setup runs if the name is free, nothing if it is an index of {@code table} already, and
 *     anything else holding it is an error naming it; null when only dropping
 * @param indexMade for an index, the {@code CREATE INDEX} statements the app's records say it
 *     made under {@code indexDrops} (never run): an index there that names no app is dropped
 *     only if it is one of them, as a user's index under the name is not the app's to drop; for
 *     a full-text index, the {@code CREATE VIRTUAL TABLE} statements of its records, likewise
 */
@ActionValue
public record AttachmentAction(
    String table, List<String> teardown, List<String> setup, String fullTextIndex,
    String sqlCommand, String sqlCommandTeardown, String index, List<String> indexDrops,
    String indexName, String handOverTable, List<String> handOverSetup,
    List<SqlCommandHandler.Declared> sqlCommandsElsewhere, List<String> indexMade) {

  /** An action that runs {@code teardown}, then {@code setup}. */
  static AttachmentAction of(String table, List<String> teardown, List<String> setup) {
    return new AttachmentAction(table, teardown, setup, null, null, null, null, List.of(), null,
        null, List.of(), List.of(), List.of());
  }

  /**
   * An action on the index {@code index} of {@code table}: drop {@code drops}, then create it
   * under {@code name} with {@code setup} (when {@code name} is not null).
   */
  static AttachmentAction ofIndex(
      String table, String index, List<String> drops, String name, List<String> setup) {
    return new AttachmentAction(
        table, List.of(), setup, null, null, null, index, List.copyOf(drops), name, null,
        List.of(), List.of(), List.of());
  }

  /**
   * The action on the full-text index {@code name} of {@code table}: drop what exists, then run
   * {@code setup} (empty for a removal).
   */
  static AttachmentAction ofFullTextIndex(String table, String name, List<String> setup) {
    return new AttachmentAction(table, List.of(), setup, name, null, null, null, List.of(), null,
        null, List.of(), List.of(), List.of());
  }

  /** This index action, with the statements the app's records say made {@link #indexDrops}. */
  AttachmentAction withIndexMade(List<String> made) {
    return new AttachmentAction(table, teardown, setup, fullTextIndex, sqlCommand,
        sqlCommandTeardown, index, indexDrops, indexName, handOverTable, handOverSetup,
        sqlCommandsElsewhere, List.copyOf(made));
  }

  /** This removal, then {@code setup} of the index on {@code table} if the name is left free. */
  AttachmentAction handingOverTo(String table, List<String> setup) {
    return new AttachmentAction(this.table, teardown, this.setup, fullTextIndex, null, null, null,
        List.of(), null, table, List.copyOf(setup), List.of(), indexMade);
  }

  /**
   * This action on the SQL command {@code name}, undone by {@code teardown} once set up (null for
   * a removal), with the commands of its name {@code elsewhere}.
   */
  AttachmentAction withSqlCommand(
      String name, String teardown, List<SqlCommandHandler.Declared> elsewhere) {
    return new AttachmentAction(table, this.teardown, setup, null, name, teardown, null,
        List.of(), null, null, List.of(), List.copyOf(elsewhere), List.of());
  }
}
