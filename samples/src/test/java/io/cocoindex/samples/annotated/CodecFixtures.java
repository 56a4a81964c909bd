package io.cocoindex.samples.annotated;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.annotation.TrackingRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** Records whose generated codecs the codec tests exercise. */
final class CodecFixtures {
  private CodecFixtures() {}

  enum Color {
    RED,
    GREEN
  }

  @TargetValue
  record Inner(String name, long size) {}

  /** One component of every supported shape. */
  @TargetValue
  record Everything(
      boolean flag,
      byte tiny,
      short small,
      int count,
      long big,
      float ratio,
      double precise,
      char letter,
      Boolean maybeFlag,
      Integer maybeCount,
      Long maybeBig,
      Double maybePrecise,
      Character maybeLetter,
      String text,
      byte[] blob,
      UUID id,
      Fingerprint fingerprint,
      StableKey key,
      Color color,
      Inner inner,
      List<String> words,
      List<Inner> inners,
      Set<String> tags,
      Set<Color> colors,
      Map<String, Integer> counts,
      Optional<String> note,
      Optional<Inner> maybeInner,
      List<List<Long>> matrix) {}

  /** A tracking record as an earlier release stored it. */
  @TrackingRecord
  record TableRecordV1(String schema) {}

  /** The same tracking record after components were added. */
  @TrackingRecord
  record TableRecordV2(
      String schema,
      int version,
      boolean indexed,
      List<String> columns,
      Map<String, String> options,
      Optional<String> comment,
      Inner owner) {}

  @TrackingRecord
  record ColorRecord(Color color) {}

  /** {@link ColorRecord} with the color stored as free text. */
  @TrackingRecord
  record ColorAsText(String color) {}

  /** {@link TableRecordV2}'s version stored as text. */
  @TrackingRecord
  record VersionAsText(String schema, String version) {}

  /** Optionals inside a list, a map, and an optional list: an empty one is stored as null. */
  @TargetValue
  record Optionals(
      List<Optional<String>> notes,
      Map<String, Optional<Integer>> counts,
      Optional<List<Optional<Inner>>> nested) {}
}
