package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A rerun in which nothing changed costs reads only. A container refreshed as it was (its handler
 * returns an Update on every run it is declared, rule 6) still reaches its sink, but neither it
 * nor anything else is written to the store; on the embedded store the database file is left as
 * it was, and the run's version stays free for the next run that writes.
 */
class QuietRerunTest extends EngineTestBase {
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  final Map<String, String> declared = new TreeMap<>(Map.of("r1", "v1", "r2", "v1"));
  String generation = "g1";

  /** Records every write the engine hands the store. */
  static final class Writes extends ForwardingStateStore {
    final List<StateWrite> writes = Collections.synchronizedList(new ArrayList<>());

    Writes(StateStore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> batch) {
      writes.addAll(batch);
      return super.write(app, batch);
    }

    List<StateWrite> take() {
      synchronized (writes) {
        List<StateWrite> out = List.copyOf(writes);
        writes.clear();
        return out;
      }
    }
  }

  Consumer<Ctx> main() {
    return ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs =
          mountTarget(ctx, p.targetState("docs", new Tables.TableSpec(generation)));
      declared.forEach((k, v) -> ctx.mount(k, c -> declareTargetState(c, docs.targetState(k, v))));
    };
  }

  @Test
  void aRerunInWhichNothingChangedRefreshesTheContainerAndWritesNothing() {
    Writes store = new Writes(store());
    try (App app = App.create("quiet", Environment.builder().stateStore(store).build(), main())) {
      app.update();
      assertThat(tables.takeLog()).containsExactly("ensure docs");
      assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1");
      assertThat(store.take()).isNotEmpty();

      app.update();
      assertThat(tables.takeLog()).as("refreshed on every run").containsExactly("ensure docs");
      assertThat(rows.takeLog()).isEmpty();
      assertThat(store.take()).isEmpty();

      // A changed container record is precommitted before its sink runs, as always.
      generation = "g2";
      app.update();
      assertThat(tables.takeLog()).containsExactly("ensure docs");
      assertThat(rows.takeLog()).isEmpty();
      assertThat(store.take()).hasAtLeastOneElementOfType(StateWrite.Precommit.class);

      app.update();
      assertThat(tables.takeLog()).containsExactly("ensure docs");
      assertThat(store.take()).as("the new record is the one tracked").isEmpty();
    }
  }

  @Test
  void onTheEmbeddedStoreTheFileIsLeftAsItWasAndTheVersionStaysFree() throws Exception {
    assumeTrue(!ON_POSTGRES, "the embedded store's file");
    try (App app = app(main())) {
      app.update();
    }
    byte[] before = Files.readAllBytes(dbPath.resolve("state.db"));

    try (App app = app(main())) {
      app.update();
    }
    assertThat(tables.takeLog()).containsExactly("ensure docs", "ensure docs");
    assertThat(Files.readAllBytes(dbPath.resolve("state.db"))).isEqualTo(before);

    declared.put("r1", "v2");
    try (App app = app(main())) {
      app.update();
    }
    assertThat(rows.takeLog()).containsExactly("create r1=v1", "create r2=v1", "update r1=v2");
    Map<String, Long> versions = new TreeMap<>();
    StateStore store = store();
    store.scan("test", new byte[0], s -> versions.put(key(s), newest(s)));
    // Run 1 wrote everything; run 2 wrote nothing, so run 3 got its version: 2.
    assertThat(versions).containsEntry("r1", 2L).containsEntry("r2", 1L);
  }

  /** The last key of the state's path: a row's key, or the table's name. */
  private static String key(TrackedState s) {
    List<StableKey> keys = TargetPath.decode(s.path()).keys();
    return keys.get(keys.size() - 1) instanceof StableKey.Str str ? str.value() : "";
  }

  private static long newest(TrackedState s) {
    List<PossibleRecord> records = s.records();
    return records.get(records.size() - 1).version();
  }
}
