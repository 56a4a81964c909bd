package io.cocoindex.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The desired rows, generated on demand (never held whole, so a 1M run fits a small heap):
 * component {@code c} holds rows {@code c * perComponent ..} at the component's version, except
 * single rows bumped on their own.
 */
final class Dataset {
  final int rows;
  final int perComponent;
  final int components;
  private final int[] versions;
  /**
   * Each component's revision, bumped whenever any of its rows changes: what a source keeps
   * beside its content and can report without reading it (a file's modification time, an
   * object's ETag, a row's {@code updated_at}).
   */
  private final long[] revisions;
  /** Components {@code 0..live-1} are declared; those after were removed. */
  private int live;
  /** Whether every component declares no row ({@link #emptyAll}). */
  private boolean emptied;
  private final Map<Long, Integer> rowVersions = new HashMap<>();

  Dataset(int rows, int perComponent) {
    if (rows % perComponent != 0) {
      throw new IllegalArgumentException(rows + " rows do not split into components of "
          + perComponent);
    }
    this.rows = rows;
    this.perComponent = perComponent;
    this.components = rows / perComponent;
    this.versions = new int[components];
    this.revisions = new long[components];
    this.live = components;
  }

  /** The components still declared: {@code 0} to this, exclusive. */
  int live() {
    return live;
  }

  /** Removes every component (their rows are to be deleted). */
  void removeAll() {
    live = 0;
  }

  /** Keeps every component, each now declaring no row (their rows are to be deleted). */
  void emptyAll() {
    emptied = true;
  }

  /**
   * Removes the last 1% of the components still declared (their rows are to be deleted).
   *
   * @return the rows removed
   */
  int removeLast() {
    int count = Math.max(1, components / 100);
    if (count > live) {
      throw new IllegalStateException("no components left to remove");
    }
    live -= count;
    return count * perComponent;
  }

  /** The source's stamp of a component's rows, which changes whenever they do. */
  SourcePart part(int component) {
    return new SourcePart(component, revisions[component]);
  }

  List<BenchRow> rows(int component) {
    if (emptied) {
      return List.of();
    }
    List<BenchRow> out = new ArrayList<>(perComponent);
    long first = (long) component * perComponent;
    for (long id = first; id < first + perComponent; id++) {
      Integer own = rowVersions.get(id);
      out.add(BenchRow.of(id, own != null ? own : versions[component]));
    }
    return out;
  }

  /**
   * Changes every row of the first 1% of components (1% of rows, concentrated, as when a few
   * source files change).
   *
   * @return the rows changed
   */
  int changeConcentrated() {
    int count = Math.max(1, components / 100);
    for (int c = 0; c < count; c++) {
      versions[c]++;
      revisions[c]++;
      for (long id = (long) c * perComponent; id < (long) (c + 1) * perComponent; id++) {
        rowVersions.remove(id);
      }
    }
    return count * perComponent;
  }

  /**
   * Changes 1% of rows spread evenly over all components (every memo misses when a component
   * holds 100 rows).
   *
   * @return the rows changed
   */
  int changeScattered() {
    int count = Math.max(1, rows / 100);
    long stride = rows / count;
    for (int i = 0; i < count; i++) {
      long id = i * stride + (stride / 2);
      int component = (int) (id / perComponent);
      rowVersions.merge(id, versions[component] + 1, (a, b) -> a + 1);
      revisions[component]++;
    }
    return count;
  }
}
