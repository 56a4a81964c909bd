package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * An {@link ActionListener} observes and cannot veto: what it throws leaves the action applied
 * and committed, the update's outcome as it was, and every listener told of every action.
 */
class ThrowingListenerTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Map<String, String> declared = new TreeMap<>(Map.of("r1", "v1", "r2", "v1", "r3", "v1"));
  /** What the listener added after the throwing one was told, as "provider verb key". */
  final List<String> told = Collections.synchronizedList(new ArrayList<>());

  Consumer<Ctx> main() {
    return ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      declared.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, p.targetState(k, v))));
    };
  }

  /** An app whose first listener throws on every action on {@code r2}, the second records. */
  App app() {
    ActionListener throwing = (provider, key, action) -> {
      if (Rows.keyText(key).equals("r2")) {
        throw new IllegalStateException("audit log unavailable");
      }
    };
    ActionListener recording = (provider, key, action) ->
        told.add(provider + " " + action.verb() + " " + Rows.keyText(key));
    return app("listened", environmentBuilder().listener(throwing).listener(recording).build(),
        main());
  }

  List<String> takeTold() {
    synchronized (told) {
      List<String> out = new ArrayList<>(told);
      told.clear();
      Collections.sort(out);
      return out;
    }
  }

  @Test
  void aComponentWhoseListenerThrowsStaysCommittedAndIsNotRunAgain() {
    App app = app();
    UpdateStats first = app.update();
    assertThat(first.of("rows")).isEqualTo(new UpdateStats.ProviderStats(3, 0, 0, 0));
    assertThat(rows.takeLog()).containsExactlyInAnyOrder("create r1=v1", "create r2=v1",
        "create r3=v1");
    assertThat(takeTold()).containsExactly("rows create r1", "rows create r2", "rows create r3");

    UpdateStats rerun = app.update();
    assertThat(rerun.of("rows")).isEqualTo(new UpdateStats.ProviderStats(0, 0, 0, 3));
    assertThat(rows.takeLog()).isEmpty();
    assertThat(takeTold()).isEmpty();
  }

  @Test
  void aDeletionWhoseListenerThrowsStandsAndTheSweepGoesOn() {
    App app = app();
    app.update();
    rows.takeLog();
    takeTold();

    declared.remove("r2");
    declared.remove("r3");
    UpdateStats removed = app.update();
    assertThat(removed.of("rows")).isEqualTo(new UpdateStats.ProviderStats(0, 0, 2, 1));
    assertThat(rows.takeLog()).containsExactlyInAnyOrder("delete r2", "delete r3");
    assertThat(takeTold()).containsExactly("rows delete r2", "rows delete r3");

    app.update();
    assertThat(rows.takeLog()).isEmpty();
    assertThat(takeTold()).isEmpty();
  }
}
