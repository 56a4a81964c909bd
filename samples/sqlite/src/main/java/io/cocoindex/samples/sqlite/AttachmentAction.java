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
 */
@ActionValue
public record AttachmentAction(
    String table, List<String> teardown, List<String> setup, String fullTextIndex) {

  /** An action that runs {@code teardown}, then {@code setup}. */
  static AttachmentAction of(String table, List<String> teardown, List<String> setup) {
    return new AttachmentAction(table, teardown, setup, null);
  }

  /** This action on the full-text index {@code name}. */
  AttachmentAction withFullTextIndex(String name) {
    return new AttachmentAction(table, teardown, setup, name);
  }
}
