package io.cocoindex.runtime.component;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.plan.DeclaredTarget;
import io.cocoindex.runtime.plan.TargetPath;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A component's declarations keep the order they were made in and each path once, whether they
 * come in path order (checked against the last path only) or not (checked against all of them).
 */
class DeclarationsTest {
  private static DeclaredTarget row(String key) {
    TargetPath path = TargetPath.of(List.of(StableKey.symbol("rows"), new StableKey.Str(key)));
    return new DeclaredTarget(null, new StableKey.Str(key), path, key, null);
  }

  private static List<String> keys(Declarations d) {
    return d.snapshot().stream().map(t -> (String) t.copy()).toList();
  }

  @Test
  void declarationsInPathOrderAreKeptInOrderAndAPathDeclaredAgainIsRefused() {
    Declarations d = new Declarations(4);

    assertThat(d.add(row("a"))).isTrue();
    assertThat(d.add(row("b"))).isTrue();
    assertThat(d.add(row("b"))).as("the last path again").isFalse();
    assertThat(d.add(row("c"))).isTrue();

    assertThat(keys(d)).containsExactly("a", "b", "c");
    assertThat(d.inPathOrder()).isTrue();
  }

  @Test
  void afterADeclarationOutOfPathOrderEveryEarlierPathIsStillRefused() {
    Declarations d = new Declarations(4);
    d.add(row("b"));
    d.add(row("d"));

    assertThat(d.add(row("a"))).as("out of order, new").isTrue();
    assertThat(d.add(row("b"))).as("declared before the last one").isFalse();
    assertThat(d.add(row("d"))).isFalse();
    assertThat(d.add(row("a"))).isFalse();
    assertThat(d.add(row("c"))).isTrue();

    assertThat(keys(d)).containsExactly("b", "d", "a", "c");
    assertThat(d.inPathOrder()).isFalse();
  }

  private static DeclaredTarget at(String... keys) {
    List<StableKey> path = Arrays.stream(keys).<StableKey>map(StableKey.Str::new).toList();
    return new DeclaredTarget(null, path.get(path.size() - 1), TargetPath.of(path), keys, null);
  }

  @Test
  void aDeclarationShallowerThanOneBeforeItBreaksDepthOrderInEitherMode() {
    Declarations inPath = new Declarations(4);
    inPath.add(at("t"));
    inPath.add(at("t", "r1"));
    assertThat(inPath.inDepthOrder()).as("a container, then its row").isTrue();
    inPath.add(at("u"));
    assertThat(inPath.inPathOrder()).isTrue();
    assertThat(inPath.inDepthOrder()).as("path order, a shallower one after a deeper").isFalse();

    Declarations outOfPath = new Declarations(4);
    outOfPath.add(at("u"));
    outOfPath.add(at("t"));
    assertThat(outOfPath.inPathOrder()).isFalse();
    assertThat(outOfPath.inDepthOrder()).as("the same depth, out of path order").isTrue();
    outOfPath.add(at("t", "r1"));
    outOfPath.add(at("a"));
    assertThat(outOfPath.inDepthOrder()).isFalse();
  }

  @Test
  void clearedDeclarationsStartAgainInPathOrder() {
    Declarations d = new Declarations(4);
    d.add(row("b"));
    d.add(row("a"));
    d.clear();

    assertThat(d.size()).isZero();
    assertThat(d.add(row("b"))).isTrue();
    assertThat(d.inPathOrder()).isTrue();
    assertThat(d.inDepthOrder()).isTrue();
  }
}
