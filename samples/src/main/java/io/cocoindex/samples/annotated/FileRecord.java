package io.cocoindex.samples.annotated;

import io.cocoindex.Fingerprint;
import io.cocoindex.annotation.TrackingRecord;

/**
 * What is remembered of a written file: the fingerprint of its content, not the content.
 *
 * @param content the fingerprint of the written content
 */
@TrackingRecord
public record FileRecord(Fingerprint content) {}
