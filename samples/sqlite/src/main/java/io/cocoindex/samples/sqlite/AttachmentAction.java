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
 */
@ActionValue
public record AttachmentAction(String table, List<String> teardown, List<String> setup) {}
