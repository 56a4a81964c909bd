package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Protected subtrees cover exactly their roots' descendants, whatever else sorts between. */
class SubtreesTest {
  static TargetPath path(Object... keys) {
    TargetPath p = TargetPath.ROOT;
    for (Object k : keys) {
      p = p.child(StableKey.of(k));
    }
    return p;
  }

  @Test
  void aSubtreeCoversItselfAndItsDescendantsOnly() {
    Subtrees p = new Subtrees();
    assertThat(p.covers(path("a"))).isFalse();
    p.add(path("a", "b"));

    assertThat(p.covers(path("a", "b"))).isTrue();
    assertThat(p.covers(path("a", "b", "c", 1))).isTrue();
    assertThat(p.covers(path("a"))).isFalse();
    assertThat(p.covers(path("a", "bb"))).as("a key that begins alike is a sibling").isFalse();
    assertThat(p.covers(path("a", "c"))).isFalse();
    assertThat(p.covers(path("b"))).isFalse();
  }

  @Test
  void anAncestorIsFoundPastProtectedPathsSortedBetweenItAndTheComponent() {
    Subtrees p = new Subtrees();
    p.add(path("x"));
    p.add(path("x", "a", "deep"));
    p.add(path("x", "b"));
    p.add(path("x", "c", 1, 2));

    // Each of these sorts after a protected path that is not its ancestor; "x" covers them all.
    assertThat(p.covers(path("x", "a", "z"))).isTrue();
    assertThat(p.covers(path("x", "bz"))).isTrue();
    assertThat(p.covers(path("x", "c", 1, 3, 4))).isTrue();
    assertThat(p.covers(path("y"))).isFalse();
  }

  @Test
  void theRootCoversEverything() {
    Subtrees p = new Subtrees();
    p.add(path("m", "n"));
    assertThat(p.covers(path("m", "o"))).isFalse();
    p.add(TargetPath.ROOT);
    assertThat(p.covers(path("m", "o"))).isTrue();
    assertThat(p.covers(TargetPath.ROOT)).isTrue();
  }

  /** Against the definition (some root is the path or one of its ancestors), on random trees. */
  @Test
  void agreesWithTheDefinitionOnRandomTrees() {
    Random random = new Random(20261205);
    for (int round = 0; round < 200; round++) {
      List<TargetPath> all = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        int depth = 1 + random.nextInt(5);
        Object[] keys = new Object[depth];
        for (int d = 0; d < depth; d++) {
          keys[d] = random.nextBoolean() ? (Object) ("k" + random.nextInt(3))
              : (Object) (long) random.nextInt(3);
        }
        all.add(path(keys));
      }
      Subtrees p = new Subtrees();
      List<TargetPath> roots = new ArrayList<>();
      for (TargetPath t : all) {
        if (random.nextInt(4) == 0) {
          p.add(t);
          roots.add(t);
        }
      }
      for (TargetPath t : all) {
        boolean expected = roots.stream().anyMatch(r -> t.keys().size() >= r.keys().size()
            && t.keys().subList(0, r.keys().size()).equals(r.keys()));
        assertThat(p.covers(t)).as("round %s, %s under %s", round, t, roots).isEqualTo(expected);
      }
    }
  }
}
