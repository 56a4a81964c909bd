package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.ActionValue;

/**
 * Drop an index, create it, or both (a changed spec: drop first, same name).
 *
 * @param schema the table's schema (the index lives there)
 * @param table the table
 * @param name the index name
 * @param drop drop the existing index first
 * @param create the index to create, or null when only dropping
 */
@ActionValue
public record IndexAction(
    String schema, String table, String name, boolean drop, IndexSpec create) {}
