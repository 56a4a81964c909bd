package io.cocoindex.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an update would do now: every planned action, container targets included. Nothing was
 * applied and nothing was persisted.
 *
 * @param actions the planned actions, grouped by provider in first-seen order
 */
public record Preview(List<PlannedAction> actions) {
  public Preview {
    actions = List.copyOf(actions);
  }

  /** The planned actions by provider name. */
  public Map<String, List<PlannedAction>> byProvider() {
    Map<String, List<PlannedAction>> out = new LinkedHashMap<>();
    for (PlannedAction a : actions) {
      out.computeIfAbsent(a.provider(), k -> new ArrayList<>()).add(a);
    }
    return out;
  }

  /** Whether any planned action is more than a container's refresh. */
  public boolean hasChanges() {
    return actions.stream().anyMatch(a -> !a.refresh());
  }

  /** The planned actions that change something (container refreshes left out). */
  public List<PlannedAction> changes() {
    return actions.stream().filter(a -> !a.refresh()).toList();
  }
}
