package io.cocoindex.samples.sqlite;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.annotation.TrackingRecord;

/**
 * Arbitrary setup SQL with the teardown that undoes it (a view, a trigger), tracked by both: when
 * it changes, the previous teardown runs before the new setup; when removed, or when its table
 * is dropped or recreated (a primary-key change), the teardown runs.
 *
 * @param name its name, unique in the table
 * @param setup the SQL to run to set it up (one statement)
 * @param teardown the SQL that undoes it (one statement); it may run when what it removes is
 *     gone already (a rebuild of the table drops the table's triggers), so write it idempotent:
 *     {@code DROP VIEW IF EXISTS v}
 */
@TargetValue
@TrackingRecord
public record SqlCommand(@Key String name, String setup, String teardown) {}
