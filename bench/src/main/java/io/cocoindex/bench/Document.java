package io.cocoindex.bench;

import io.cocoindex.Fingerprint;
import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A document as a connector would declare it: the richer record of the codec benchmark.
 *
 * @param id the key
 * @param title the title
 * @param tags its tags
 * @param counts term counts, by term
 * @param content the fingerprint of its content
 * @param note an optional note
 * @param sections its sections
 */
@TargetValue
public record Document(
    @Key String id,
    String title,
    List<String> tags,
    Map<String, Long> counts,
    Fingerprint content,
    Optional<String> note,
    List<Section> sections) {

  /**
   * One section of a document.
   *
   * @param heading its heading
   * @param level its heading level
   * @param text its text
   */
  @TargetValue
  public record Section(String heading, int level, String text) {}

  static Document sample() {
    return new Document("docs/guide/getting-started.md", "Getting started",
        List.of("guide", "intro", "setup"),
        Map.of("cocoindex", 12L, "target", 7L, "state", 9L, "connector", 4L),
        Fingerprint.ofString("getting started with cocoindex"), Optional.of("reviewed"),
        List.of(new Section("Install", 2, "Add the dependency to your build and run it once."),
            new Section("First app", 2, "Declare the rows you want; the engine does the rest.")));
  }
}
