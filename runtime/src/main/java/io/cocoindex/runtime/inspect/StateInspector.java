package io.cocoindex.runtime.inspect;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.KeyEncoding;
import io.cocoindex.runtime.plan.ProviderNames;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Reads an app's tracked state for {@link StatusReport}; takes no lock, so it can run anytime. */
public final class StateInspector {
  private StateInspector() {}

  /** What {@code store} tracks for {@code app}, per provider, with its unsettled states. */
  public static StatusReport inspect(StateStore store, String app) {
    Map<String, List<StableKey>> providers = new TreeMap<>();
    List<StatusReport.UnsettledState> unsettled = new ArrayList<>();
    store.scan(app, new byte[0], s -> {
      List<StableKey> path = KeyEncoding.decodePath(s.path());
      String provider = ProviderNames.providerOf(path);
      providers.computeIfAbsent(provider, k -> new ArrayList<>()).add(path.get(path.size() - 1));
      boolean none = s.records().stream().anyMatch(PossibleRecord::isNone);
      if (s.records().size() > 1 || none) {
        unsettled.add(new StatusReport.UnsettledState(
            provider, KeyEncoding.render(path), s.records().size(), none));
      }
    });
    return new StatusReport(app, providers, unsettled, store.components(app).size());
  }

}
