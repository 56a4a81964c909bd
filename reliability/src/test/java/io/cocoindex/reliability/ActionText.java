package io.cocoindex.reliability;

import io.cocoindex.TargetAction;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.Preview;
import io.cocoindex.runtime.UpdateStats;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Actions as the recovery oracles compare them: as text by content, and lists of such text as
 * multisets.
 */
final class ActionText {
  private ActionText() {}

  /** "provider verb key value", the value {@link #of(Object) by content}. */
  static String of(PlannedAction a) {
    return a.provider() + " " + a.action().verb() + " " + a.key() + " " + of(a.action().value());
  }

  /**
   * A value by content: a record's components, recursively, and a byte array as text (the
   * connectors' actions carry file contents as bytes, whose {@code toString} is an identity).
   */
  static String of(Object value) {
    if (value instanceof byte[] b) {
      return "bytes'" + new String(b, StandardCharsets.UTF_8) + "'";
    }
    if (value instanceof List<?> l) {
      List<String> items = new ArrayList<>();
      l.forEach(x -> items.add(of(x)));
      return items.toString();
    }
    if (value != null && value.getClass().isRecord()) {
      StringBuilder sb = new StringBuilder(value.getClass().getSimpleName()).append('[');
      RecordComponent[] parts = value.getClass().getRecordComponents();
      for (int i = 0; i < parts.length; i++) {
        try {
          sb.append(i == 0 ? "" : ", ").append(parts[i].getName()).append('=')
              .append(of(parts[i].getAccessor().invoke(value)));
        } catch (ReflectiveOperationException e) {
          return String.valueOf(value); // a record this package cannot read: as it prints
        }
      }
      return sb.append(']').toString();
    }
    return String.valueOf(value);
  }

  /** Whether {@code a} and {@code b} are equal as multisets. */
  static boolean sameMultiset(List<String> a, List<String> b) {
    return sorted(a).equals(sorted(b));
  }

  static List<String> sorted(List<String> l) {
    List<String> out = new ArrayList<>(l);
    Collections.sort(out);
    return out;
  }

  /** The states ("provider key") {@code actions} act on, or only those they delete; sorted. */
  static List<String> states(List<PlannedAction> actions, boolean deletions) {
    List<String> out = new ArrayList<>();
    for (PlannedAction a : actions) {
      if (!deletions || a.action() instanceof TargetAction.Delete) {
        out.add(a.provider() + " " + a.key());
      }
    }
    Collections.sort(out);
    return out;
  }

  /** {@code a} without {@code b}, as multisets, sorted. */
  static List<String> minus(List<String> a, List<String> b) {
    List<String> out = sorted(a);
    b.forEach(out::remove);
    return out;
  }

  /**
   * What disagrees between a preview and the update after it in their counts: the changes
   * planned per provider (created, updated, deleted) against those the update counted, and
   * {@code hasChanges()} against whether it changed anything. {@code update} names the update in
   * the messages ("the update", "the recovery").
   */
  static List<String> countsDisagreeing(Preview preview, UpdateStats stats, String update) {
    List<String> problems = new ArrayList<>();
    Map<String, List<Long>> planned = new TreeMap<>();
    for (PlannedAction a : preview.changes()) {
      List<Long> c = planned.computeIfAbsent(a.provider(),
          p -> new ArrayList<>(List.of(0L, 0L, 0L)));
      int i = switch (a.action().verb()) {
        case "create" -> 0;
        case "update" -> 1;
        default -> 2;
      };
      c.set(i, c.get(i) + 1);
    }
    Map<String, List<Long>> counted = new TreeMap<>();
    stats.providers().forEach((provider, s) -> {
      if (s.changed() > 0) {
        counted.put(provider, List.of(s.created(), s.updated(), s.deleted()));
      }
    });
    if (!planned.equals(counted)) {
      problems.add("planned changes (created, updated, deleted) " + planned + " but " + update
          + " counted " + counted);
    }
    if (preview.hasChanges() != (stats.total().changed() > 0)) {
      problems.add("hasChanges() " + preview.hasChanges() + " but " + update + " changed "
          + stats.total().changed());
    }
    return problems;
  }

  /** The first five of {@code l}, and how many more. */
  static String first(List<String> l) {
    return l.size() <= 5 ? l.toString() : l.subList(0, 5) + " and " + (l.size() - 5) + " more";
  }
}
