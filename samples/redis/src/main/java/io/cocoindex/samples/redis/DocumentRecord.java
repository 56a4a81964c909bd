package io.cocoindex.samples.redis;

import io.cocoindex.Fingerprint;
import io.cocoindex.annotation.TrackingRecord;

/**
 * What is remembered of a document: the fingerprint of its fields.
 *
 * @param fields the fingerprint of the document's fields
 */
@TrackingRecord
public record DocumentRecord(Fingerprint fields) {}
