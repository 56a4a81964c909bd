package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.apply.SinkWork;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a sink was applying for one component, as its failure tells it ({@link
 * io.cocoindex.runtime.apply.SinkFailure#work}): which provider's sink, how many actions, and
 * the keys of the first few, by verb. With several targets, the provider is what says which of
 * them failed; the sink's own message rarely does.
 */
final class SinkContexts {
  /** The most keys a context names: a component of 10,000 rows must not make a page of text. */
  static final int KEYS_SHOWN = 5;

  private SinkContexts() {}

  /**
   * E.g. the sink {@code the sink of provider 'rows'} and the actions {@code 3 actions (update
   * "k1", "k2"; delete "k3")}; {@code what}, if not null, follows the count ({@code for target
   * states no longer declared}).
   */
  static SinkWork applying(List<Reconciliation> applied, String what) {
    Set<String> providers = new LinkedHashSet<>();
    // Per verb, in order met: how many, and the first keys (no more are ever shown).
    Map<String, List<String>> keysByVerb = new LinkedHashMap<>();
    Map<String, int[]> countByVerb = new LinkedHashMap<>();
    for (Reconciliation r : applied) {
      providers.add("'" + r.provider.name() + "'");
      String verb = r.action.verb();
      countByVerb.computeIfAbsent(verb, v -> new int[1])[0]++;
      List<String> keys = keysByVerb.computeIfAbsent(verb, v -> new ArrayList<>());
      if (keys.size() < KEYS_SHOWN) {
        keys.add(r.key.toString());
      }
    }
    String sink = (providers.size() == 1 ? "the sink of provider " : "the sink of providers ")
        + String.join(", ", providers);
    StringBuilder sb = new StringBuilder().append(applied.size())
        .append(applied.size() == 1 ? " action" : " actions");
    if (what != null) {
      sb.append(' ').append(what);
    }
    sb.append(" (");
    int budget = KEYS_SHOWN;
    String sep = "";
    for (Map.Entry<String, List<String>> e : keysByVerb.entrySet()) {
      List<String> keys = e.getValue();
      int count = countByVerb.get(e.getKey())[0];
      sb.append(sep);
      sep = "; ";
      if (budget == 0) {
        sb.append(count).append(' ').append(e.getKey()).append(count == 1 ? "" : "s");
        continue;
      }
      int shown = Math.min(budget, keys.size());
      sb.append(e.getKey()).append(' ').append(String.join(", ", keys.subList(0, shown)));
      if (shown < count) {
        sb.append(" and ").append(count - shown).append(" more");
      }
      budget -= shown;
    }
    return new SinkWork(sink, sb.append(')').toString());
  }
}
