package io.cocoindex.runtime.inspect;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.KeyEncoding;
import io.cocoindex.runtime.plan.ProviderNames;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Reads an app's tracked state for {@link StatusReport}; takes no lock, so it can run anytime. */
public final class StateInspector {
  private StateInspector() {}

  /**
   * A container as its children are judged against it: its child generation and epoch, and
   * whether it is itself behind its own container (which the next update's reconciliation of it
   * passes on to its children).
   */
  private record Container(long childGeneration, long childEpoch, boolean behind) {}

  /**
   * What {@code store} tracks for {@code app}, per provider, with its unsettled states.
   *
   * @param store the state store the app keeps its tracking in
   * @param app the app's name
   * @return the report, with the providers by name; empty for an app the store does not know
   */
  public static StatusReport inspect(StateStore store, String app) {
    Map<String, List<StableKey>> providers = new TreeMap<>();
    List<StatusReport.UnsettledState> unsettled = new ArrayList<>();
    // The containers scanned so far, by path: a container comes before its children in path
    // order.
    Map<List<StableKey>, Container> containers = new HashMap<>();
    store.scan(app, new byte[0], s -> {
      List<StableKey> path = KeyEncoding.decodePath(s.path());
      String provider = ProviderNames.providerOf(path);
      providers.computeIfAbsent(provider, k -> new ArrayList<>()).add(path.get(path.size() - 1));
      boolean none = s.records().stream().anyMatch(PossibleRecord::isNone);
      boolean behind = behindItsContainer(containers, path, s);
      if (s.childGeneration() > 0) {
        containers.put(path, new Container(s.childGeneration(), s.childEpoch(), behind));
      }
      if (s.records().size() > 1 || none || behind) {
        unsettled.add(new StatusReport.UnsettledState(
            provider, KeyEncoding.render(path), s.records().size(), none || behind, behind));
      }
    });
    return new StatusReport(app, providers, unsettled, store.components(app).size());
  }

  /**
   * Whether {@code s} was written before its container's last DESTRUCTIVE or LOSSY invalidation
   * (or its container is itself behind its own): its records were not confirmed since, and the
   * next update reconciles it as possibly missing, so writes it again, as a full reprocess would.
   * A run leaves it so when the container's change committed and the component that declares
   * the state failed (or the run stopped before it).
   */
  private static boolean behindItsContainer(
      Map<List<StableKey>, Container> containers, List<StableKey> path, TrackedState s) {
    // The container's path: the provider's (the state's without its last key), without the
    // attachment types at its end (an attachment's states are judged against the container
    // its provider is attached to).
    int end = path.size() - 1;
    while (end > 1 && path.get(end - 1) instanceof StableKey.Symbol) {
      end--;
    }
    if (end <= 1) {
      return false; // a root provider's state: no container
    }
    Container c = containers.get(path.subList(0, end));
    return c != null && (c.behind()
        || s.parentGeneration() < c.childGeneration() || s.parentEpoch() < c.childEpoch());
  }
}
