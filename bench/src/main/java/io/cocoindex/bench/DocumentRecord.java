package io.cocoindex.bench;

import io.cocoindex.Fingerprint;
import io.cocoindex.annotation.TrackingRecord;

/**
 * The tracking record of a {@link Document}: small, as tracking records should be.
 *
 * @param content the fingerprint of what was written
 * @param version the writer's schema version
 * @param title the title, to name the document in a delete
 */
@TrackingRecord
public record DocumentRecord(Fingerprint content, long version, String title) {
  static DocumentRecord sample() {
    return new DocumentRecord(Fingerprint.ofString("getting started with cocoindex"), 3,
        "Getting started");
  }
}
