package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The run-wide table of paths tells paths apart by their bytes, not by their hash: two paths of
 * one hash are two claims (a state taken for another's would fail a component as declaring it
 * twice, or keep an orphan from the sweep), and so are two whose hashes differ only in the bit
 * the table uses to mark a used slot.
 */
class PathTableTest {
  private static byte[] path(String name) {
    return name.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void pathsOfOneHashAreKeptApartThroughEveryGrowth() {
    PathTable table = PathTable.withValues();
    int paths = 1_000; // the table doubles six times from its first 16 slots
    for (int i = 0; i < paths; i++) {
      // Twenty paths per hash, and hashes 2k and 2k + 1 alike once stored: forty per hash kept.
      int hash = i / 20;
      assertThat(table.putIfAbsent(hash, path("p" + i), i)).as("p%d, new", i).isEqualTo(-1);
    }

    assertThat(table.size()).isEqualTo(paths);
    for (int i = 0; i < paths; i++) {
      int slot = table.find(i / 20, path("p" + i));
      assertThat(slot).as("p%d", i).isNotNegative();
      assertThat(table.valueAt(slot)).isEqualTo(i);
      assertThat(table.putIfAbsent(i / 20, path("p" + i), -7)).as("p%d, again", i).isEqualTo(i);
    }
    assertThat(table.find(0, path("p40"))).as("a path under another's hash").isNegative();
    assertThat(table.find(0, path("q0"))).isNegative();
    assertThat(table.size()).isEqualTo(paths);
  }

  @Test
  void aSetTellsPathsOfOneHashApartAndIsEmptyAgainOnceCleared() {
    PathTable set = PathTable.set();
    assertThat(set.isEmpty()).isTrue();
    assertThat(set.putIfAbsent(42, path("a"), 0)).isEqualTo(-1);
    assertThat(set.putIfAbsent(43, path("b"), 0)).isEqualTo(-1);
    assertThat(set.putIfAbsent(42, path("a"), 0)).as("a again").isZero();
    assertThat(set.find(43, path("a"))).isNotNegative();
    assertThat(set.find(42, path("c"))).isNegative();

    set.clear();
    assertThat(set.isEmpty()).isTrue();
    assertThat(set.find(42, path("a"))).isNegative();
    assertThat(set.putIfAbsent(42, path("a"), 0)).isEqualTo(-1);
  }
}
