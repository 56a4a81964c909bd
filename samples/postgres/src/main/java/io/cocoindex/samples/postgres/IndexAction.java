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
 */
@ActionValue
public record IndexAction(
    String schema, String table, List<String> drop, String name, IndexSpec create) {}
