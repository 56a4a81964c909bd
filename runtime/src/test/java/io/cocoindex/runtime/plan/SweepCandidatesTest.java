package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The orphan sweep's candidates: in path order once sorted, one per path, found by bytes. */
class SweepCandidatesTest {
  static TargetPath path(Object... keys) {
    List<StableKey> k = new ArrayList<>();
    for (Object key : keys) {
      k.add(StableKey.of(key));
    }
    return TargetPath.of(k);
  }

  static final TargetPath A = path("a");
  static final TargetPath B = path("b");

  static List<TargetPath> paths(SweepCandidates c) {
    List<TargetPath> out = new ArrayList<>();
    for (int i = 0; i < c.size(); i++) {
      out.add(c.path(i));
    }
    return out;
  }

  @Test
  void candidatesComeInPathOrderAContainerBeforeItsChildren() {
    SweepCandidates c = new SweepCandidates();
    c.add(path("t", "docs", 2L).encoded(), B, false);
    c.add(path("t", "docs").encoded(), A, false);
    c.add(path("s", 1L).encoded(), B, false);
    c.add(path("t", "docs", 1L).encoded(), A, false);
    c.sort();

    assertThat(paths(c)).containsExactly(path("s", 1L), path("t", "docs"),
        path("t", "docs", 1L), path("t", "docs", 2L));
    assertThat(c.owner(0)).isEqualTo(B);
    assertThat(c.owner(1)).isEqualTo(A);
  }

  @Test
  void ofTwoCandidatesOfOnePathTheLastAddedStays() {
    SweepCandidates c = new SweepCandidates();
    c.add(path("x").encoded(), A, false);
    c.add(path("w").encoded(), A, false);
    c.add(path("x").encoded(), B, false);
    c.sort();

    assertThat(paths(c)).containsExactly(path("w"), path("x"));
    assertThat(c.owner(1)).isEqualTo(B);
  }

  @Test
  void aCandidateIsFoundByItsEncodedPath() {
    SweepCandidates c = new SweepCandidates();
    for (int i = 99; i >= 0; i -= 3) {
      c.add(path("r", (long) i).encoded(), A, false);
    }
    c.sort();

    assertThat(c.contains(path("r", 99L).encoded())).isTrue();
    assertThat(c.contains(path("r", 0L).encoded())).isTrue();
    assertThat(c.contains(path("r", 1L).encoded())).isFalse();
    assertThat(c.contains(path("r").encoded())).as("a prefix is another path").isFalse();
    assertThat(new SweepCandidates().contains(A.encoded())).isFalse();
  }

  @Test
  void candidatesReadBeforeBeingSortedAreRefused() {
    SweepCandidates c = new SweepCandidates();
    c.add(B.encoded(), B, false);
    c.add(A.encoded(), A, false);

    assertThatThrownBy(() -> c.contains(A.encoded())).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("before being sorted");
  }

  @Test
  void eachReadingOfAPathIsItsOwnCopy() {
    SweepCandidates c = new SweepCandidates();
    c.add(A.encoded(), A, false);

    TargetPath first = c.path(0);
    assertThat(first).isEqualTo(A).isNotSameAs(c.path(0));
  }

  @Test
  void aCandidateAddedWithItsRowKeepsItInPathOrder() {
    TrackedState container = new TrackedState(path("t", "docs").encoded(), B.encoded(),
        List.of(), 3, 1, 1, 1);
    TrackedState child = new TrackedState(path("t", "docs", 1L).encoded(), B.encoded(),
        List.of(), 0, 0, 3, 1);
    SweepCandidates c = new SweepCandidates();
    c.add(child, B);
    c.add(path("s").encoded(), A, false);
    c.add(container, B);
    c.sort();

    assertThat(paths(c)).containsExactly(path("s"), path("t", "docs"), path("t", "docs", 1L));
    assertThat(c.row(0)).as("added by path: read by path").isNull();
    assertThat(c.row(1)).isSameAs(container);
    assertThat(c.row(2)).isSameAs(child);
    assertThat(c.container(1)).isTrue();
    assertThat(c.container(2)).isFalse();
    assertThat(c.owner(2)).isEqualTo(B);
  }
}
