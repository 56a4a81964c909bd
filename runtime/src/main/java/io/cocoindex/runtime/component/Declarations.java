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
 * indexes every path in a set, which checks the rest. It also notes whether they come in depth
 * order, so that the commit sorts them (containers first) only when they do not. Not
 * thread-safe.
 */
final class Declarations {
  private final ArrayList<DeclaredTarget> list;
  private TargetPath last;
  /** Every declared path, once one came out of path order; null before. */
  private Set<TargetPath> index;
  /** The greatest depth declared so far, and whether a shallower one came after it. */
  private int deepest;
  private boolean outOfDepthOrder;

  Declarations(int expected) {
    this.list = new ArrayList<>(expected);
  }

  /** Adds {@code d}, or returns false (adding nothing) when its path was declared already. */
  boolean add(DeclaredTarget d) {
    TargetPath path = d.path();
    if (index == null) {
      int order = last == null ? -1 : last.compareTo(path);
      if (order == 0) {
        return false;
      }
      if (order < 0) {
        last = path;
        append(d);
        return true;
      }
      index = new HashSet<>(Math.max(16, 2 * list.size()));
      for (DeclaredTarget earlier : list) {
        index.add(earlier.path());
      }
    }
    if (!index.add(path)) {
      return false;
    }
    append(d);
    return true;
  }

  private void append(DeclaredTarget d) {
    list.add(d);
    int depth = d.path().depth();
    outOfDepthOrder |= depth < deepest;
    deepest = Math.max(deepest, depth);
  }

  int size() {
    return list.size();
  }

  /** Whether every declaration came after the one before it in path order. */
  boolean inPathOrder() {
    return index == null;
  }

  /** Whether no declaration came after a deeper one. */
  boolean inDepthOrder() {
    return !outOfDepthOrder;
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
    deepest = 0;
    outOfDepthOrder = false;
  }
}
