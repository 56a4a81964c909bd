package io.cocoindex.runtime.plan;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which component declared each target state in this run: a state declared by two components is
 * an error, and the orphan sweep leaves alone what another component took over.
 *
 * <p>A component claims all its states at once under one lock: a concurrent map paid two
 * contended atomic updates per state (its size counter is shared by every component thread),
 * about a tenth of a warm run.
 */
final class Claims {
  /** Beyond this many expected states the table grows as it fills rather than up front. */
  private static final long MAX_PRESIZED = 1 << 22;

  private final Map<TargetPath, TargetPath> byPath;

  /**
   * @param expectedStates about how many states the run will declare (what the app tracks): the
   *     table is sized for them up front, since growing it step by step to 100k entries cost a
   *     tenth of a warm run
   */
  Claims(long expectedStates) {
    this.byPath = new HashMap<>(
        (int) Math.min(Math.max(expectedStates, 0), MAX_PRESIZED) * 4 / 3 + 16);
  }

  /** A path claimed by another component before this one. */
  record Conflict(DeclaredTarget declared, TargetPath other) {}

  /**
   * Claims every declared path for {@code component}; stops at the first path another component
   * holds (the paths claimed before it stay claimed: the run fails that component anyway).
   */
  synchronized Conflict claim(List<DeclaredTarget> declared, TargetPath component) {
    for (DeclaredTarget d : declared) {
      TargetPath other = byPath.putIfAbsent(d.path(), component);
      if (other != null && !other.equals(component)) {
        return new Conflict(d, other);
      }
    }
    return null;
  }

  /** Whether some component declared {@code path} in this run. */
  synchronized boolean contains(TargetPath path) {
    return byPath.containsKey(path);
  }
}
