package io.cocoindex.runtime.component;

import io.cocoindex.runtime.plan.DeclaredTarget;
import io.cocoindex.runtime.plan.TargetPath;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One component's declarations, in the order made, each target state path once. While they come
 * in path order, as rows declared by ascending key do (key encoding keeps their order), a path
 * declared again can only equal the last one, and no table of paths is kept: a map entry per
 * declaration had been a few percent of a warm rerun. The first declaration out of path order
 * indexes every path in a set, which checks the rest. Not thread-safe.
 */
final class Declarations {
  private final ArrayList<DeclaredTarget> list;
  private TargetPath last;
  /** Every declared path, once one came out of path order; null before. */
  private Set<TargetPath> index;

  Declarations(int expected) {
    this.list = new ArrayList<>(expected);
  }

  /** Adds {@code d}, or returns false (adding nothing) when its path was declared already. */
  boolean add(DeclaredTarget d) {
    TargetPath path = d.path();
    if (index == null) {
      int order = last == null ? -1 : last.compareTo(path);
      if (order < 0) {
        list.add(d);
        last = path;
        return true;
      }
      if (order == 0) {
        return false;
      }
      index = new HashSet<>(Math.max(16, 2 * list.size()));
      for (DeclaredTarget earlier : list) {
        index.add(earlier.path());
      }
    }
    if (!index.add(path)) {
      return false;
    }
    list.add(d);
    return true;
  }

  int size() {
    return list.size();
  }

  /** Whether every declaration came after the one before it in path order. */
  boolean inPathOrder() {
    return index == null;
  }

  /** The declarations so far, in the order made. */
  List<DeclaredTarget> snapshot() {
    return List.copyOf(list);
  }

  /** Lets go of every declaration. */
  void clear() {
    list.clear();
    list.trimToSize();
    last = null;
    index = null;
  }
}
