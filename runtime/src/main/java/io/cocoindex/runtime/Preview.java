package io.cocoindex.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an update would do now: every planned action, container targets included. Nothing was
 * applied and nothing was persisted.
 *
 * <p>A container declared as it was still plans an Update on every run (its handler is
 * re-ensured, and its children's handler comes from that action): such a refresh is among the
 * {@link #actions()}, and left out of the {@link #changes()}.
 */
public final class Preview {
  private final List<PlannedAction> actions;
  private final List<PlannedAction> changes;

  /**
   * A preview whose every action changes something (none is a container's refresh).
   *
   * @param actions the planned actions, in the order the run planned them
   */
  public Preview(List<PlannedAction> actions) {
    this(actions, actions);
  }

  /**
   * A preview of the given actions, some of which may be container refreshes.
   *
   * @param actions the planned actions, in the order the run planned them (the end-of-run
   *     deletions last); {@link #byProvider()} groups them
   * @param changes those of them that are more than a container's refresh, in the same order
   */
  public Preview(List<PlannedAction> actions, List<PlannedAction> changes) {
    this.actions = List.copyOf(actions);
    this.changes = List.copyOf(changes);
  }

  /**
   * Every planned action, container refreshes included.
   *
   * @return the planned actions, in the order the run planned them
   */
  public List<PlannedAction> actions() {
    return actions;
  }

  /**
   * The planned actions that change something (container refreshes left out).
   *
   * @return those actions, in the same order; empty when an update would change nothing
   */
  public List<PlannedAction> changes() {
    return changes;
  }

  /**
   * Whether any planned action is more than a container's refresh.
   *
   * @return true when an update would change something
   */
  public boolean hasChanges() {
    return !changes.isEmpty();
  }

  /**
   * The planned actions by provider name.
   *
   * @return each provider's planned actions, container refreshes included, providers in the order
   *     first planned
   */
  public Map<String, List<PlannedAction>> byProvider() {
    Map<String, List<PlannedAction>> out = new LinkedHashMap<>();
    for (PlannedAction a : actions) {
      out.computeIfAbsent(a.provider(), k -> new ArrayList<>()).add(a);
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Preview p && actions.equals(p.actions) && changes.equals(p.changes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(actions, changes);
  }

  /**
   * The changes (each as {@link PlannedAction#toString} writes it), then how many container
   * refreshes were left out of them: {@code Preview[<change>, <change>; 1 container refresh]},
   * or {@code Preview[no change; 2 container refreshes]}.
   */
  @Override
  public String toString() {
    int refreshes = actions.size() - changes.size();
    StringBuilder sb = new StringBuilder("Preview[");
    if (changes.isEmpty()) {
      sb.append("no change");
    }
    for (int i = 0; i < changes.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(changes.get(i));
    }
    if (refreshes > 0) {
      sb.append("; ").append(refreshes)
          .append(refreshes == 1 ? " container refresh" : " container refreshes");
    }
    return sb.append(']').toString();
  }
}
