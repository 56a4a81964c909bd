/**
 * Diffing of tracking records: given the desired record and every record that may currently
 * hold, decide whether to insert, upsert, replace, delete or do nothing.
 *
 * <pre>{@code
 * DiffAction a = StateDiff.diff(new TrackingRecordTransition<>("v2", List.of("v1"), false));
 * // REPLACE
 * }</pre>
 *
 * <p>{@link io.cocoindex.statediff.StateDiff#resolveSystemTransition} narrows states the user may
 * own to those the system must act on; {@link io.cocoindex.statediff.StateDiff#diffComposite}
 * diffs a record with keyed parts (a table and its columns) part by part.
 */
package io.cocoindex.statediff;
