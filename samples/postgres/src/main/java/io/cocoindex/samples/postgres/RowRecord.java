package io.cocoindex.samples.postgres;

import io.cocoindex.Fingerprint;
import io.cocoindex.annotation.TrackingRecord;

/**
 * What is remembered of a row: the fingerprint of its values, not the values.
 *
 * @param values the fingerprint of the row's column values
 */
@TrackingRecord
public record RowRecord(Fingerprint values) {}
