package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.TrackedState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A component's declarations are matched with the states it owned whatever the order of either:
 * declared in key order (as most components declare rows) or not, and with the owned states as
 * the store returns them, in path order or not. A rerun creates what is new, updates what
 * changed, deletes what is no longer declared (at the start, middle and end of the key range)
 * and leaves the rest, and looks up no path it declares again outside its own states. The stores
 * return a component's states in path order, so that the common case needs no table of paths.
 */
class DeclarationOrderTest extends EngineTestBase {
  final Rows rows = new Rows();
  Map<String, String> declared = new LinkedHashMap<>();

  /**
   * Notes the paths the engine looks up outside the states their component owned; optionally
   * returns each component's owned states in reverse path order (and read one by one).
   */
  static final class Observed extends ForwardingStateStore {
    final boolean ownedInReverse;
    final List<String> lookedUp = Collections.synchronizedList(new ArrayList<>());

    Observed(StateStore delegate, boolean ownedInReverse) {
      super(delegate);
      this.ownedInReverse = ownedInReverse;
    }

    @Override
    public boolean exclusiveWhileLocked() {
      // Not exclusive: the run asks ownedBy, rather than reading the embedded store's chunks.
      return !ownedInReverse && super.exclusiveWhileLocked();
    }

    @Override
    public List<TrackedState> ownedBy(String app, byte[] componentPath) {
      List<TrackedState> owned = new ArrayList<>(super.ownedBy(app, componentPath));
      if (ownedInReverse) {
        Collections.reverse(owned);
      }
      return owned;
    }

    @Override
    public List<TrackedState> getAll(String app, Collection<byte[]> paths) {
      paths.forEach(p -> lookedUp.add(Rows.keyText(TargetPath.decode(p).last())));
      return super.getAll(app, paths);
    }

    List<String> takeLookedUp() {
      synchronized (lookedUp) {
        List<String> out = new ArrayList<>(lookedUp);
        Collections.sort(out);
        lookedUp.clear();
        return out;
      }
    }
  }

  Consumer<Ctx> main() {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount("c", c -> declared.forEach((k, v) -> declareTargetState(c, p.targetState(k, v))));
    };
  }

  void declare(boolean keyOrder, String... keysAndValues) {
    List<String[]> pairs = new ArrayList<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      pairs.add(new String[] {keysAndValues[i], keysAndValues[i + 1]});
    }
    if (!keyOrder) {
      Collections.reverse(pairs);
    }
    declared = new LinkedHashMap<>();
    pairs.forEach(kv -> declared.put(kv[0], kv[1]));
  }

  @Test
  void aStoreReturnsAComponentsStatesInPathOrder() {
    StateStore store = store();
    try (App app = App.create("order", Environment.builder().stateStore(store).build(), main())) {
      declare(false, "k1", "v1", "k3", "v1", "k2", "v1", "k10", "v1");
      app.update();
    }

    byte[] component = TargetPath.of(List.of(StableKey.of("c"))).encoded();
    List<String> owned = store.ownedBy("order", component).stream()
        .map(s -> Rows.keyText(TargetPath.decode(s.path()).last())).toList();
    assertThat(owned).containsExactly("k1", "k10", "k2", "k3");
  }

  @ParameterizedTest(name = "declared in key order: {0}, owned states in reverse: {1}")
  @CsvSource({"true, false", "false, false", "true, true", "false, true"})
  void aRerunAppliesExactlyTheDifference(boolean keyOrder, boolean ownedInReverse) {
    Observed store = new Observed(store(), ownedInReverse);
    try (App app = App.create("order", Environment.builder().stateStore(store).build(), main())) {
      declare(keyOrder, "k1", "v1", "k2", "v1", "k3", "v1", "k4", "v1", "k5", "v1", "k6", "v1");
      app.update();
      assertThat(rows.takeLog()).containsExactly("create k1=v1", "create k2=v1", "create k3=v1",
          "create k4=v1", "create k5=v1", "create k6=v1");
      rows.takeCalls();
      store.takeLookedUp();

      // k1, k4 and k6 go (first, middle, last); k0, k35 and k7 come (before, between, after);
      // k3 changes; k2 and k5 stay as they were.
      declare(keyOrder, "k0", "v1", "k2", "v1", "k3", "v2", "k35", "v1", "k5", "v1", "k7", "v1");
      app.update();
      assertThat(rows.takeLog()).containsExactly("create k0=v1", "create k35=v1", "create k7=v1",
          "delete k1", "delete k4", "delete k6", "update k3=v2");
      assertThat(rows.takeCalls()).extracting(Rows.Call::toString).containsExactly(
          "k0 desired=v1 prev=[] mbm=true", "k1 desired=null prev=[v1] mbm=false",
          "k2 desired=v1 prev=[v1] mbm=false", "k3 desired=v2 prev=[v1] mbm=false",
          "k35 desired=v1 prev=[] mbm=true", "k4 desired=null prev=[v1] mbm=false",
          "k5 desired=v1 prev=[v1] mbm=false", "k6 desired=null prev=[v1] mbm=false",
          "k7 desired=v1 prev=[] mbm=true");
      // Looked up outside the component's own states: the new paths (whether another component
      // had them) and, by the sweep, those no longer declared; never one declared again.
      assertThat(store.takeLookedUp()).containsExactly("k0", "k1", "k35", "k4", "k6", "k7");

      app.update();
      assertThat(rows.takeLog()).isEmpty();
      assertThat(rows.takeCalls()).extracting(Rows.Call::toString).containsExactly(
          "k0 desired=v1 prev=[v1] mbm=false", "k2 desired=v1 prev=[v1] mbm=false",
          "k3 desired=v2 prev=[v2] mbm=false", "k35 desired=v1 prev=[v1] mbm=false",
          "k5 desired=v1 prev=[v1] mbm=false", "k7 desired=v1 prev=[v1] mbm=false");
      assertThat(store.takeLookedUp()).isEmpty();
    }
  }
}
