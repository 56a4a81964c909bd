package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.ActionValue;
import java.util.List;

/**
 * Drop an index, create it, or both (a changed spec: drop first).
 *
 * @param schema the table's schema (the index lives there)
 * @param table the table
 * @param drop the names of the index to drop first, if it is on this table
 * @param name the name to create the index under, or null when only dropping
 * @param create the index to create, or null when only dropping
 * @param made what the app's records say it made under the {@code drop} names: an index there
 *     that names no app is dropped only if it is defined so (a user's index under the name is
 *     not the app's to drop)
 */
@ActionValue
public record IndexAction(String schema, String table, List<String> drop, String name,
    IndexSpec create, List<IndexRecord> made) {}
