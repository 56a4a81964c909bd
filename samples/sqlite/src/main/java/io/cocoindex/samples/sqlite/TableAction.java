package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.ActionValue;
import java.util.List;

/**
 * What the table sink does.
 *
 * @param spec the declared table (for a drop: the last known one)
 * @param ensure create the table if missing and add missing columns (first run, or after an
 *     interrupted one); false when nothing about the table changed
 * @param recreate drop the table first (its primary key changed)
 * @param addColumns columns to add in place
 * @param rebuild columns were dropped or changed type: rebuild the table, keeping what converts
 * @param drop drop the table; for a user-managed one ({@link TableSpec#userManaged}), remove
 *     only what the app made on it, leaving the table and its rows
 * @param fullTextIndexesElsewhere for a drop, the full-text indexes other tables of the database
 *     declare in the run: one of them that the drop takes (this table had taken it from the
 *     other in a run that failed before its end) is created on its table again
 * @param sqlCommandsElsewhere for a drop, the SQL commands other tables of the database declare
 *     in the run: those named as one the drop tears down are set up again ({@link
 *     SqlCommandHandler})
 */
@ActionValue
public record TableAction(
    TableSpec spec, boolean ensure, boolean recreate, List<ColumnSpec> addColumns, boolean rebuild,
    boolean drop, List<FullTextIndexHandler.Declared> fullTextIndexesElsewhere,
    List<SqlCommandHandler.Declared> sqlCommandsElsewhere) {}
