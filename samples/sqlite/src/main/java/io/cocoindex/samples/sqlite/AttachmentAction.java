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
 *     if it is an index of {@code table}, an error if anything else holds the name and the action
 *     would create it; null for other attachments
 * @param sqlCommand for a SQL command, its name: the teardown recorded for it in the database
 *     ({@link SqlCommandRecords}) runs first if the teardowns do not hold it, and the action is
 *     recorded there; null for other attachments
 * @param sqlCommandTeardown for a SQL command set up, the teardown to record; null for a removal
 */
@ActionValue
public record AttachmentAction(
    String table, List<String> teardown, List<String> setup, String fullTextIndex,
    String sqlCommand, String sqlCommandTeardown) {

  /** An action that runs {@code teardown}, then {@code setup}. */
  static AttachmentAction of(String table, List<String> teardown, List<String> setup) {
    return new AttachmentAction(table, teardown, setup, null, null, null);
  }

  /** This action on the full-text index {@code name}. */
  AttachmentAction withFullTextIndex(String name) {
    return new AttachmentAction(table, teardown, setup, name, null, null);
  }

  /** This action on the SQL command {@code name}, undone by {@code teardown} once set up. */
  AttachmentAction withSqlCommand(String name, String teardown) {
    return new AttachmentAction(table, this.teardown, setup, null, name, teardown);
  }
}
