package io.cocoindex.samples.localfs;

import io.cocoindex.Fingerprint;
import io.cocoindex.annotation.TrackingRecord;

/**
 * What is remembered of an entry: its kind and, for a file, the fingerprint of its content.
 *
 * @param directory whether it is a directory
 * @param content the content fingerprint of a file; null for a directory
 */
@TrackingRecord
public record EntryRecord(boolean directory, Fingerprint content) {}
