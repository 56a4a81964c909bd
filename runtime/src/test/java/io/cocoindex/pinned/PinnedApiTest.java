package io.cocoindex.pinned;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.declareTargetStateWithChild;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.junit.jupiter.api.Assertions.*;

import io.cocoindex.ActionApplier;
import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.ChildTargetDef;
import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetState;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.TargetStates;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.Preview;
import io.cocoindex.runtime.UpdateOptions;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.inspect.StatusReport;
import io.cocoindex.statediff.CompositeTrackingRecord;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.ManagedBy;
import io.cocoindex.statediff.MutualTrackingRecord;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pinned public API of DESIGN.md, used as an outside test author would: from a package of its
 * own (public names only), every pinned name and shape spelled out literally, so that renaming
 * one, reordering a parameter or changing a generic shape or a checked exception fails to
 * compile. Each is exercised against a real app on the embedded store with recording sinks.
 */
public class PinnedApiTest {
  @TempDir Path dir;
  final List<App> apps = new ArrayList<>();

  @AfterEach
  void close() {
    apps.forEach(App::close);
  }

  App app(String name, Environment env, Consumer<Ctx> main) {
    App a = App.create(name, env, main);
    apps.add(a);
    return a;
  }

  // ---------------------------------------------------------------- StableKey

  @Test
  void stableKeyRecordsAndAccessors() {
    StableKey.Null n = new StableKey.Null();
    StableKey.Bool b = new StableKey.Bool(true);
    boolean bv = b.value();
    StableKey.Int i = new StableKey.Int(7L);
    long iv = i.value();
    StableKey.Str s = new StableKey.Str("x");
    String sv = s.value();
    StableKey.Bytes by = new StableKey.Bytes(new byte[] {1, 2});
    byte[] byv = by.value();
    UUID u = UUID.fromString("00000000-0000-0000-0000-000000000001");
    StableKey.Uuid uk = new StableKey.Uuid(u);
    UUID uv = uk.value();
    StableKey.Symbol sym = new StableKey.Symbol("tables");
    String symName = sym.name();
    StableKey.Array arr = new StableKey.Array(List.of(s, i));
    List<StableKey> items = arr.items();
    Fingerprint fp = Fingerprint.ofString("f");
    StableKey.Fp fk = new StableKey.Fp(fp);
    Fingerprint fv = fk.value();

    assertTrue(bv);
    assertEquals(7L, iv);
    assertEquals("x", sv);
    assertArrayEquals(new byte[] {1, 2}, byv);
    assertEquals(u, uv);
    assertEquals("tables", symName);
    assertEquals(List.of(new StableKey.Str("x"), new StableKey.Int(7)), items);
    assertEquals(fp, fv);

    // of(): each listed type
    assertEquals(n, StableKey.of(null));
    assertEquals(new StableKey.Str("a"), StableKey.of("a"));
    assertEquals(new StableKey.Int(1), StableKey.of(1));
    assertEquals(new StableKey.Int(1), StableKey.of(1L));
    assertEquals(new StableKey.Int(1), StableKey.of((short) 1));
    assertEquals(new StableKey.Int(1), StableKey.of((byte) 1));
    assertEquals(new StableKey.Bool(false), StableKey.of(false));
    assertEquals(uk, StableKey.of(u));
    assertEquals(by, StableKey.of(new byte[] {1, 2})); // by content
    assertEquals(
        new StableKey.Array(List.of(new StableKey.Str("db"), new StableKey.Int(3),
            new StableKey.Array(List.of(new StableKey.Null())))),
        StableKey.of(List.of("db", 3, Collections.singletonList(null))));
    assertSame(sym, StableKey.of(sym));
    assertEquals(sym, StableKey.symbol("tables"));
    assertNotEquals(StableKey.symbol("x"), StableKey.of("x"));

    // rejection naming the type
    IllegalArgumentException e1 =
        assertThrows(IllegalArgumentException.class, () -> StableKey.of(1.5d));
    assertTrue(e1.getMessage().contains("java.lang.Double"), e1.getMessage());
    IllegalArgumentException e2 =
        assertThrows(IllegalArgumentException.class, () -> StableKey.of(new Object()));
    assertTrue(e2.getMessage().contains("java.lang.Object"), e2.getMessage());
    IllegalArgumentException e3 =
        assertThrows(IllegalArgumentException.class, () -> StableKey.of(List.of("a", 'c')));
    assertTrue(e3.getMessage().contains("java.lang.Character"), e3.getMessage());
    IllegalArgumentException e4 =
        assertThrows(IllegalArgumentException.class, () -> StableKey.of(Map.of()));
    assertTrue(e4.getMessage().contains("Map"), e4.getMessage());
  }

  // ---------------------------------------------------------------- Fingerprint

  enum Color { RED, GREEN }

  record Doc(String title, int n, List<String> tags) {}

  @Test
  void fingerprint() {
    Fingerprint a = Fingerprint.of(new Doc("t", 1, List.of("x")));
    assertEquals(a, Fingerprint.of(new Doc("t", 1, List.of("x"))));
    assertNotEquals(a, Fingerprint.of(new Doc("t", 2, List.of("x"))));
    assertEquals(16, a.bytes().length);
    assertTrue(a.toString().matches("#[0-9a-f]{32}"), a.toString());
    StringBuilder hex = new StringBuilder("#");
    for (byte x : a.bytes()) {
      hex.append(String.format("%02x", x));
    }
    assertEquals(hex.toString(), a.toString());

    Map<String, Integer> m1 = new LinkedHashMap<>();
    m1.put("b", 2);
    m1.put("a", 1);
    Map<String, Integer> m2 = new TreeMap<>(m1);
    assertEquals(Fingerprint.of(m1), Fingerprint.of(m2)); // maps sorted
    assertNotEquals(Fingerprint.of(List.of(1, 2)), Fingerprint.of(List.of(2, 1)));
    assertEquals(Fingerprint.of(Color.RED), Fingerprint.of(Color.RED));
    assertNotEquals(Fingerprint.of(Color.RED), Fingerprint.of(Color.GREEN));
    assertEquals(Fingerprint.ofString("ab"), Fingerprint.of("ab"));
    assertEquals(Fingerprint.ofBytes(new byte[] {1}), Fingerprint.of(new byte[] {1}));
    assertNotEquals(Fingerprint.ofString("ab"),
        Fingerprint.ofBytes("ab".getBytes(StandardCharsets.UTF_8))); // type-tagged
    assertNotEquals(Fingerprint.of(1L), Fingerprint.of("1"));
    assertNotEquals(Fingerprint.of(a), Fingerprint.of(a.bytes()));
    assertEquals(Fingerprint.of(StableKey.of("k")), Fingerprint.of(StableKey.of("k")));
    assertNotEquals(Fingerprint.of(StableKey.of("k")), Fingerprint.of("k"));
    assertEquals(Fingerprint.of(3.5d), Fingerprint.of(3.5d));
  }

  /** Determinism across JVMs: a second JVM prints the same fingerprints. */
  @Test
  void fingerprintAcrossJvms() throws Exception {
    String here = FpMain.compute();
    Process p = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), FpMain.class.getName())
        .redirectErrorStream(true).start();
    String there = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertEquals(0, p.waitFor());
    assertEquals(here, there);
  }

  public static final class FpMain {
    static String compute() {
      Map<String, Object> m = new HashMap<>();
      for (int i = 0; i < 50; i++) {
        m.put("k" + i, List.of(i, "v" + i));
      }
      return Fingerprint.of(m) + " " + Fingerprint.of(new Doc("t", 1, List.of("x")))
          + " " + Fingerprint.of(java.util.Set.of("a", "b", "c", "d")) + " " + Fingerprint.of(Color.RED);
    }

    public static void main(String[] args) {
      System.out.println(compute());
    }
  }

  // ---------------------------------------------------------------- actions & outputs

  @Test
  void actionsAndOutputs() throws Exception {
    TargetAction<String> c = TargetAction.create("c");
    TargetAction<String> u = TargetAction.update("u");
    TargetAction<String> d = TargetAction.delete("d");
    assertEquals(new TargetAction.Create<>("c"), c);
    assertEquals(new TargetAction.Update<>("u"), u);
    assertEquals(new TargetAction.Delete<>("d"), d);
    assertTrue(c instanceof TargetAction.Create<String>);
    assertEquals("u", u.value());
    TargetAction.Delete<String> dd = (TargetAction.Delete<String>) d;
    assertEquals("d", dd.value());

    List<List<TargetAction<String>>> got = new ArrayList<>();
    ActionApplier<String> applier = actions -> {
      if (actions.isEmpty()) {
        throw new Exception("checked exceptions allowed");
      }
      got.add(actions);
    };
    TargetActionSink<String> sink = TargetActionSink.of(applier);
    TargetActionSink<String> sink2 = TargetActionSink.of(applier);
    assertNotSame(sink, sink2);
    assertNotEquals(sink, sink2);
    Function<List<TargetAction<String>>, CompletionStage<Void>> async =
        actions -> CompletableFuture.completedFuture(null);
    TargetActionSink<String> asyncSink = TargetActionSink.ofAsync(async);
    assertNotNull(asyncSink);
    ChildHandlerFactory<String> f = action -> ChildTargetDef.of(new Rows().handler);
    TargetActionSink<String> container = TargetActionSink.withChildHandler(applier, f);
    assertNotNull(container);

    TargetReconcileOutput<String, Integer> out = TargetReconcileOutput.of(c, sink, 5);
    TargetAction<String> oa = out.action();
    TargetActionSink<String> os = out.sink();
    Integer tr = out.trackingRecord();
    TargetChildInvalidation ci = out.childInvalidation();
    assertEquals(c, oa);
    assertSame(sink, os);
    assertEquals(5, tr);
    assertNull(ci);
    TargetReconcileOutput<String, Integer> full =
        new TargetReconcileOutput<>(d, sink, null, TargetChildInvalidation.LOSSY);
    assertNull(full.trackingRecord());
    assertEquals(TargetChildInvalidation.LOSSY, full.childInvalidation());
    assertEquals(List.of(TargetChildInvalidation.DESTRUCTIVE, TargetChildInvalidation.LOSSY),
        List.of(TargetChildInvalidation.values()));

    TargetHandler<String, String, Rows.RowAction> h = new Rows().handler;
    Map<String, ChildTargetDef<?>> att = h.attachments();
    assertEquals(Map.of(), att);
    ChildTargetDef<String> def = ChildTargetDef.of(h);
    assertNotNull(def);

    ContextKey<String> key = ContextKey.of("conn", String.class);
    assertEquals("conn", key.name());
  }

  // ---------------------------------------------------------------- statediff

  @Test
  void statediff() {
    assertEquals(DiffAction.INSERT,
        StateDiff.diff(new TrackingRecordTransition<>("a", List.of(), true)));
    assertNull(StateDiff.diff(new TrackingRecordTransition<>("a", List.of("a"), false)));
    assertEquals(DiffAction.UPSERT,
        StateDiff.diff(new TrackingRecordTransition<>("a", List.of("a"), true)));
    assertEquals(DiffAction.REPLACE,
        StateDiff.diff(new TrackingRecordTransition<>("a", List.of("a", "b"), false)));
    assertEquals(DiffAction.DELETE,
        StateDiff.diff(new TrackingRecordTransition<String>(null, List.of("a"), false)));
    assertNull(StateDiff.diff(new TrackingRecordTransition<String>(null, List.of(), true)));
    assertNull(StateDiff.diff((TrackingRecordTransition<String>) null));
    TrackingRecordTransition<String> t = new TrackingRecordTransition<>("d", List.of("p"), true);
    String desired = t.desired();
    List<String> prev = t.prev();
    boolean mbm = t.prevMayBeMissing();
    assertEquals("d", desired);
    assertEquals(List.of("p"), prev);
    assertTrue(mbm);
    assertEquals(List.of(DiffAction.INSERT, DiffAction.UPSERT, DiffAction.REPLACE,
        DiffAction.DELETE), List.of(DiffAction.values()));
    assertEquals(List.of(ManagedBy.SYSTEM, ManagedBy.USER), List.of(ManagedBy.values()));

    MutualTrackingRecord<String> sys = new MutualTrackingRecord<>("s", ManagedBy.SYSTEM);
    MutualTrackingRecord<String> usr = new MutualTrackingRecord<>("u", ManagedBy.USER);
    assertEquals("s", sys.record());
    assertEquals(ManagedBy.SYSTEM, sys.managedBy());
    assertNull(StateDiff.resolveSystemTransition(usr, List.of(sys), false));
    assertNull(StateDiff.resolveSystemTransition(null, List.of(sys, usr), false));
    assertNull(StateDiff.resolveSystemTransition(null, List.<MutualTrackingRecord<String>>of(), true));
    assertEquals(new TrackingRecordTransition<>("s", List.of("s"), true),
        StateDiff.resolveSystemTransition(sys, List.of(sys, usr), true));
    assertEquals(new TrackingRecordTransition<String>(null, List.of("s"), false),
        StateDiff.resolveSystemTransition(null, List.of(sys), false));

    CompositeTrackingRecord<String, String, Integer> want =
        new CompositeTrackingRecord<>("m", Map.of("a", 1, "b", 2));
    CompositeTrackingRecord<String, String, Integer> had =
        new CompositeTrackingRecord<>("m", Map.of("a", 1, "c", 3));
    var cd = StateDiff.diffComposite(new TrackingRecordTransition<>(want, List.of(had), false));
    assertNull(cd.main());
    assertEquals(new TrackingRecordTransition<>(1, List.of(1), false), cd.subs().get("a"));
    assertEquals(new TrackingRecordTransition<>(2, List.of(), true), cd.subs().get("b"));
    assertEquals(new TrackingRecordTransition<Integer>(null, List.of(3), false), cd.subs().get("c"));
    assertEquals(DiffAction.DELETE, StateDiff.diffComposite(
        new TrackingRecordTransition<CompositeTrackingRecord<String, String, Integer>>(
            null, List.of(had), false)).main());
  }

  // ---------------------------------------------------------------- engine

  /** A row target recording every reconcile and every batch. */
  public static final class Rows {
    public record RowAction(String key, String value) {}

    final List<String> reconciles = Collections.synchronizedList(new ArrayList<>());
    final List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());
    final Map<String, String> external = Collections.synchronizedMap(new TreeMap<>());
    final TargetActionSink<RowAction> sink = TargetActionSink.of(actions -> {
      List<String> batch = new ArrayList<>();
      for (TargetAction<RowAction> a : actions) {
        String verb = a instanceof TargetAction.Create ? "create"
            : a instanceof TargetAction.Update ? "update" : "delete";
        batch.add(verb + " " + a.value().key() + (a.value().value() == null ? "" : "=" + a.value().value()));
        if (a instanceof TargetAction.Delete) {
          external.remove(a.value().key());
        } else {
          external.put(a.value().key(), a.value().value());
        }
      }
      batches.add(batch);
    });

    final TargetHandler<String, String, RowAction> handler = new TargetHandler<>() {
      @Override
      public TargetReconcileOutput<RowAction, String> reconcile(StableKey key, String desired,
          List<String> prevPossibleRecords, boolean prevMayBeMissing) throws Exception {
        reconciles.add(key + " " + desired + " " + prevPossibleRecords + " " + prevMayBeMissing);
        String k = ((StableKey.Str) key).value();
        DiffAction d = StateDiff.diff(
            new TrackingRecordTransition<>(desired, prevPossibleRecords, prevMayBeMissing));
        if (d == null) {
          return null;
        }
        RowAction a = new RowAction(k, desired);
        TargetAction<RowAction> action = switch (d) {
          case INSERT -> TargetAction.create(a);
          case UPSERT, REPLACE -> TargetAction.update(a);
          case DELETE -> TargetAction.delete(a);
        };
        return TargetReconcileOutput.of(action, sink, desired);
      }
    };

    List<String> takeReconciles() {
      synchronized (reconciles) {
        List<String> out = new ArrayList<>(reconciles);
        Collections.sort(out);
        reconciles.clear();
        return out;
      }
    }

    List<List<String>> takeBatches() {
      synchronized (batches) {
        List<List<String>> out = new ArrayList<>(batches);
        batches.clear();
        return out;
      }
    }
  }

  @Test
  void flatTargetLifecycle() {
    Rows rows = new Rows();
    Map<String, String> declared = new LinkedHashMap<>(Map.of("a", "1", "b", "2"));
    ContextKey<String> prefix = ContextKey.of("prefix", String.class);
    Environment env = Environment.builder().dbPath(dir).provide(prefix, "p-").build();
    App app = app("flat", env, ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      String pre = ctx.get(prefix);
      assertEquals("p-", pre);
      new TreeMap<>(declared).forEach((k, v) -> {
        TargetState<String> ts = p.targetState(k, v);
        StableKey key = ts.key();
        String value = ts.value();
        assertEquals(new StableKey.Str(k), key);
        assertEquals(v, value);
        declareTargetState(ctx, ts);
      });
    });

    UpdateStats s1 = app.update();
    assertEquals(List.of("\"a\" 1 [] true", "\"b\" 2 [] true"), rows.takeReconciles());
    assertEquals(List.of(List.of("create a=1", "create b=2")), rows.takeBatches()); // one batch
    assertEquals(2, s1.of("rows").created());

    declared.put("b", "3");
    app.update();
    assertEquals(List.of("\"a\" 1 [1] false", "\"b\" 3 [2] false"), rows.takeReconciles());
    assertEquals(List.of(List.of("update b=3")), rows.takeBatches());

    // preview: plans, no sink, nothing persisted
    declared.put("a", "9");
    Preview preview = app.preview();
    List<PlannedAction> planned = preview.actions();
    assertEquals(List.of(new PlannedAction("rows", new StableKey.Str("a"),
        TargetAction.update(new Rows.RowAction("a", "9")))), planned);
    PlannedAction pa = planned.get(0);
    String provider = pa.provider();
    StableKey pk = pa.key();
    TargetAction<?> act = pa.action();
    assertEquals("rows", provider);
    assertEquals(StableKey.of("a"), pk);
    assertTrue(act instanceof TargetAction.Update);
    assertEquals(List.of(), rows.takeBatches());
    rows.takeReconciles();
    declared.put("a", "1");

    // orphan
    declared.remove("b");
    app.update();
    assertEquals(List.of("\"a\" 1 [1] false", "\"b\" null [3] false"), rows.takeReconciles());
    assertEquals(List.of(List.of("delete b")), rows.takeBatches());

    // full reprocess
    app.update(UpdateOptions.fullReprocess());
    assertEquals(List.of("\"a\" 1 [1] true"), rows.takeReconciles());
    assertEquals(List.of(List.of("update a=1")), rows.takeBatches());

    StatusReport status = app.status();
    assertEquals(Map.of("rows", List.of(StableKey.of("a"))), status.providers());
    assertEquals(1, status.total());
    assertEquals(List.of(), status.unsettled());

    app.dropState();
    assertEquals(List.of("\"a\" null [1] false"), rows.takeReconciles());
    assertEquals(List.of(List.of("delete a")), rows.takeBatches());
    assertEquals(Map.of(), rows.external);
    assertEquals(0, app.status().total());
  }

  @Test
  void persistenceAcrossApps() {
    Rows rows = new Rows();
    Consumer<Ctx> main = ctx -> declareTargetState(ctx,
        registerRootTargetStatesProvider(ctx, "rows", rows.handler).targetState("k", "v"));
    try (App a = App.create("persist", Environment.builder().dbPath(dir).build(), main)) {
      a.update();
    }
    assertEquals(List.of("\"k\" v [] true"), rows.takeReconciles());
    try (App b = App.create("persist", Environment.builder().dbPath(dir).build(), main)) {
      b.update();
    }
    assertEquals(List.of("\"k\" v [v] false"), rows.takeReconciles());
    // a fresh App reaches the handler on dropState
    try (App c = App.create("persist", Environment.builder().dbPath(dir).build(), main)) {
      c.dropState();
    }
    assertEquals(List.of("\"k\" null [v] false"), rows.takeReconciles());
  }

  /** A container of rows. */
  public static final class Tables {
    public record Spec(String gen) {}

    public record TableAction(String name, boolean drop) {}

    final Rows rows = new Rows();
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger factoryCalls = new AtomicInteger();
    volatile TargetChildInvalidation invalidation;
    final TargetActionSink<TableAction> sink = TargetActionSink.withChildHandler(actions -> {
      for (TargetAction<TableAction> a : actions) {
        log.add((a.value().drop() ? "drop " : "ensure ") + a.value().name()
            + " (rows existing: " + rows.external.keySet() + ")");
      }
    }, action -> {
      factoryCalls.incrementAndGet();
      return ChildTargetDef.of(rows.handler);
    });
    final TargetHandler<Spec, Spec, TableAction> handler = new TargetHandler<>() {
      @Override
      public TargetReconcileOutput<TableAction, Spec> reconcile(StableKey key, Spec desired,
          List<Spec> prev, boolean mbm) {
        String name = ((StableKey.Str) key).value();
        if (desired == null) {
          return TargetReconcileOutput.of(
              TargetAction.delete(new TableAction(name, true)), sink, null);
        }
        TargetAction<TableAction> a = prev.isEmpty()
            ? TargetAction.create(new TableAction(name, false))
            : TargetAction.update(new TableAction(name, false));
        return new TargetReconcileOutput<>(a, sink, desired,
            prev.contains(desired) ? null : invalidation);
      }
    };
  }

  @Test
  void containers() {
    Tables tables = new Tables();
    boolean[] declare = {true};
    boolean[] previewing = {true};
    App app = app("containers", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<Tables.Spec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      if (!declare[0]) {
        return;
      }
      TargetStateProvider<String> docs =
          declareTargetStateWithChild(ctx, p.targetState("docs", new Tables.Spec("g1")));
      declareTargetState(ctx, docs.targetState("r1", "v1"));
      TargetStateProvider<String> mounted =
          TargetStates.<Tables.Spec, String>mountTarget(ctx, p.targetState("m", new Tables.Spec("g1")));
      // committed at once: the container exists externally when mountTarget returns
      assertEquals(!previewing[0], tables.log.contains("ensure m (rows existing: [])"),
          tables.log.toString());
      ctx.mount("child", c -> declareTargetState(c, mounted.targetState("r2", "v2")));
      String r = ctx.useMount("fg", c -> {
        declareTargetState(c, mounted.targetState("r3", "v3"));
        return "done";
      });
      assertEquals("done", r);
      assertEquals(previewing[0] ? null : "v3", tables.rows.external.get("r3")); // after commit
    });

    // preview plans containers and children; factory called, no apply
    Preview pv = app.preview();
    List<String> plannedText = new ArrayList<>();
    for (PlannedAction a : pv.actions()) {
      plannedText.add(a.provider() + " " + a.key() + " " + a.action().getClass().getSimpleName());
    }
    Collections.sort(plannedText);
    assertEquals(List.of("tables \"docs\" Create", "tables \"m\" Create",
        "tables/docs \"r1\" Create", "tables/m \"r2\" Create", "tables/m \"r3\" Create"),
        plannedText);
    assertTrue(tables.factoryCalls.get() >= 2);
    assertEquals(List.of(), tables.log);
    assertEquals(List.of(), tables.rows.takeBatches());
    assertEquals(0, app.status().total());

    previewing[0] = false;
    app.update();
    assertEquals(Map.of("r1", "v1", "r2", "v2", "r3", "v3"), tables.rows.external);
    String ensureDocs = tables.log.stream().filter(l -> l.startsWith("ensure docs")).findFirst()
        .orElseThrow();
    assertFalse(ensureDocs.contains("r1"), ensureDocs); // container applied before its children
    StatusReport st = app.status();
    assertEquals(List.of(StableKey.of("docs"), StableKey.of("m")), st.providers().get("tables"));
    assertEquals(List.of(StableKey.of("r1")), st.providers().get("tables/docs"));
    assertEquals(List.of(StableKey.of("r2"), StableKey.of("r3")), st.providers().get("tables/m"));
    tables.rows.takeReconciles();
    tables.rows.takeBatches();
    tables.log.clear();

    // container deletion: only the Delete runs; children not reconciled
    declare[0] = false;
    app.update();
    List<String> drops = new ArrayList<>(tables.log);
    Collections.sort(drops);
    assertEquals(2, drops.size(), drops.toString());
    assertTrue(drops.get(0).startsWith("drop docs") && drops.get(1).startsWith("drop m"), drops.toString());
    assertEquals(List.of(), tables.rows.takeReconciles());
    assertEquals(List.of(), tables.rows.takeBatches());
    assertEquals(0, app.status().total());
  }

  @Test
  void childInvalidation() {
    Tables tables = new Tables();
    String[] gen = {"g1"};
    App app = app("inval", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<Tables.Spec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs =
          declareTargetStateWithChild(ctx, p.targetState("docs", new Tables.Spec(gen[0])));
      declareTargetState(ctx, docs.targetState("r1", "v1"));
    });
    app.update();
    tables.rows.takeReconciles();
    tables.rows.takeBatches();

    tables.invalidation = TargetChildInvalidation.LOSSY;
    gen[0] = "g2";
    app.update();
    assertEquals(List.of("\"r1\" v1 [v1] true"), tables.rows.takeReconciles());
    app.update();
    assertEquals(List.of("\"r1\" v1 [v1] false"), tables.rows.takeReconciles());

    tables.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    gen[0] = "g3";
    app.update();
    assertEquals(List.of("\"r1\" v1 [] true"), tables.rows.takeReconciles());
  }

  @Test
  void attachmentsAndErrors() {
    Rows main = new Rows();
    Rows idx = new Rows();
    TargetHandler<String, String, Rows.RowAction> withAtt = new TargetHandler<>() {
      @Override
      public TargetReconcileOutput<Rows.RowAction, String> reconcile(StableKey key, String desired,
          List<String> prev, boolean mbm) throws Exception {
        return main.handler.reconcile(key, desired, prev, mbm);
      }

      @Override
      public Map<String, ChildTargetDef<?>> attachments() {
        return Map.of("index", ChildTargetDef.of(idx.handler));
      }
    };
    boolean[] declareIdx = {true};
    App app = app("att", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "main", withAtt);
      declareTargetState(ctx, p.targetState("row", "v"));
      if (declareIdx[0]) {
        TargetStateProvider<String> ip = p.attachment(ctx, "index");
        assertSame(ip, p.<String>attachment(ctx, "index"));
        declareTargetState(ctx, ip.targetState("row", "i"));
      }
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> p.attachment(ctx, "nope"));
      assertTrue(e.getMessage().contains("nope"), e.getMessage());
    });
    app.update();
    assertEquals(Map.of("row", "v"), main.external);
    assertEquals(Map.of("row", "i"), idx.external);
    assertEquals(List.of("main", "main@index"), List.copyOf(app.status().providers().keySet()));
    declareIdx[0] = false;
    app.update();
    assertEquals(Map.of(), idx.external);

    // duplicate key in one component
    App dup = app("dup", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", new Rows().handler);
      declareTargetState(ctx, p.targetState("same", "1"));
      declareTargetState(ctx, p.targetState("same", "2"));
    });
    RuntimeException e1 = assertThrows(RuntimeException.class, dup::update);
    assertTrue(String.valueOf(e1.getMessage()).contains("same")
        || String.valueOf(e1.getCause()).contains("same"), e1.toString());

    // duplicate provider name
    App dupP = app("dupP", Environment.builder().dbPath(dir).build(), ctx -> {
      registerRootTargetStatesProvider(ctx, "rows", new Rows().handler);
      registerRootTargetStatesProvider(ctx, "rows", new Rows().handler);
    });
    RuntimeException e2 = assertThrows(RuntimeException.class, dupP::update);
    assertTrue(e2.getMessage().contains("rows"), e2.toString());

    // missing context value
    ContextKey<Integer> missing = ContextKey.of("missing", Integer.class);
    App noCtx = app("noctx", Environment.builder().dbPath(dir).build(), ctx -> ctx.get(missing));
    RuntimeException e3 = assertThrows(RuntimeException.class, noCtx::update);
    assertTrue(e3.getMessage().contains("missing"), e3.toString());
  }

  @Test
  void asyncSinkAndStoreBuilder() {
    List<String> applied = Collections.synchronizedList(new ArrayList<>());
    TargetActionSink<String> sink = TargetActionSink.ofAsync(actions -> CompletableFuture.runAsync(
        () -> actions.forEach(a -> applied.add(a.getClass().getSimpleName() + " " + a.value()))));
    TargetHandler<String, String, String> h = new TargetHandler<>() {
      @Override
      public TargetReconcileOutput<String, String> reconcile(StableKey key, String desired,
          List<String> prev, boolean mbm) {
        return desired == null ? TargetReconcileOutput.of(TargetAction.delete(key.toString()), sink, null)
            : prev.contains(desired) ? null
            : TargetReconcileOutput.of(TargetAction.create(desired), sink, desired);
      }
    };
    io.cocoindex.runtime.state.StateStore store =
        io.cocoindex.runtime.state.SqliteStateStore.open(dir.resolve("store"));
    App app = app("async", Environment.builder().stateStore(store).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "s", h);
      ctx.mount(List.of("part", 1), c -> declareTargetState(c, p.targetState(1, "one")));
      ctx.mount(List.of("part", 2), c -> declareTargetState(c, p.targetState(2L, "two")));
    });
    app.update();
    Collections.sort(applied);
    assertEquals(List.of("Create one", "Create two"), applied);
    assertEquals(List.of(StableKey.of(1), StableKey.of(2)), app.status().providers().get("s"));
    app.close();
    store.close();
  }

  public static final class ListHandler implements TargetHandler<List<String>, List<String>, Rows.RowAction> {
    final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    final java.util.Set<Object> returned = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    final List<String> sinkSawCopies = Collections.synchronizedList(new ArrayList<>());
    final TargetActionSink<Rows.RowAction> sink = TargetActionSink.of(actions -> {
      for (TargetAction<Rows.RowAction> a : actions) {
        sinkSawCopies.add(String.valueOf(!returned.contains(a.value())));
      }
    });

    @Override
    public TargetReconcileOutput<Rows.RowAction, List<String>> reconcile(StableKey key,
        List<String> desired, List<List<String>> prev, boolean mbm) {
      seen.add(String.valueOf(desired));
      Rows.RowAction a = new Rows.RowAction(key.toString(), String.valueOf(desired));
      returned.add(a);
      return TargetReconcileOutput.of(TargetAction.create(a), sink, desired);
    }
  }

  @Test
  void serializationBoundary() {
    ListHandler h = new ListHandler();
    App app = app("ser", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<List<String>> p = registerRootTargetStatesProvider(ctx, "l", h);
      List<String> v = new ArrayList<>(List.of("a"));
      declareTargetState(ctx, p.targetState("k", v));
      v.add("mutated");
    });
    app.update();
    assertEquals(List.of("[a]"), h.seen);
    assertEquals(List.of("true"), h.sinkSawCopies);
  }

  @Test
  void possibleRecordsAfterFailedSink() {
    Rows rows = new Rows();
    String[] v = {"1"};
    boolean[] fail = {false};
    TargetActionSink<Rows.RowAction> failing = TargetActionSink.of(actions -> {
      if (fail[0]) {
        throw new java.io.IOException("scripted sink failure");
      }
    });
    TargetHandler<String, String, Rows.RowAction> h = new TargetHandler<>() {
      @Override
      public TargetReconcileOutput<Rows.RowAction, String> reconcile(StableKey key, String desired,
          List<String> prev, boolean mbm) {
        rows.reconciles.add(key + " " + desired + " " + new java.util.TreeSet<>(prev) + " " + mbm);
        return desired == null ? null : TargetReconcileOutput.of(
            TargetAction.update(new Rows.RowAction("k", desired)), failing, desired);
      }
    };
    App app = app("pr", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", h);
      declareTargetState(ctx, p.targetState("k", v[0]));
    });
    fail[0] = true;
    assertThrows(RuntimeException.class, app::update);
    assertEquals(List.of("\"k\" 1 [] true"), rows.takeReconciles());
    assertEquals(List.of(new io.cocoindex.runtime.inspect.StatusReport.UnsettledState(
        "rows", "/@rows/\"k\"", 2, true)), app.status().unsettled());
    fail[0] = false;
    app.update();
    assertEquals(List.of("\"k\" 1 [1] true"), rows.takeReconciles()); // a "none" among them
    v[0] = "2";
    fail[0] = true;
    RuntimeException e = assertThrows(RuntimeException.class, app::update);
    assertTrue(e.toString().contains("scripted sink failure") || String.valueOf(e.getCause()).contains("scripted"), e.toString());
    assertEquals(1, app.status().unsettled().size());
    rows.takeReconciles();
    fail[0] = false;
    v[0] = "3";
    app.update();
    assertEquals(List.of("\"k\" 3 [1, 2] false"), rows.takeReconciles());
    v[0] = "4";
    app.update();
    assertEquals(List.of("\"k\" 4 [3] false"), rows.takeReconciles());
  }

  @Test
  void ownershipTransferAndPartialFailure() {
    Rows rows = new Rows();
    String[] owner = {"c1"};
    boolean[] breakOther = {false};
    App app = app("own", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      ctx.mount(owner[0], c -> declareTargetState(c, p.targetState("k", "v")));
      ctx.mount("other", c -> {
        if (breakOther[0]) {
          throw new IllegalStateException("scripted component failure");
        }
        declareTargetState(c, p.targetState("o", "v"));
      });
      ctx.mount("healthy", c -> declareTargetState(c, p.targetState("h", breakOther[0] ? "v2" : "v")));
    });
    app.update();
    rows.takeReconciles();
    rows.takeBatches();
    owner[0] = "c2";
    app.update();
    assertEquals(List.of(), rows.takeBatches()); // moved, unchanged: no delete + create
    assertEquals(List.of("\"h\" v [v] false", "\"k\" v [v] false", "\"o\" v [v] false"), rows.takeReconciles());

    breakOther[0] = true;
    RuntimeException e = assertThrows(RuntimeException.class, app::update);
    assertTrue(e.getMessage().contains("scripted component failure"), e.getMessage());
    assertEquals("v2", rows.external.get("h")); // healthy committed
    assertEquals("v", rows.external.get("o")); // failed one's state not deleted
    assertEquals(List.of(StableKey.of("h"), StableKey.of("k"), StableKey.of("o")),
        app.status().providers().get("rows"));
  }

  @Test
  void containerReturningNothingLeavesChildProviderUnresolved() {
    Rows rows = new Rows();
    TargetActionSink<String> sink = TargetActionSink.withChildHandler(a -> {},
        a -> ChildTargetDef.of(rows.handler));
    TargetHandler<String, String, String> nothing = new TargetHandler<>() {
      @Override
      public TargetReconcileOutput<String, String> reconcile(StableKey key, String desired,
          List<String> prev, boolean mbm) {
        return prev.contains(desired) ? null
            : TargetReconcileOutput.of(TargetAction.create(desired), sink, desired);
      }
    };
    App app = app("unres", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "c", nothing);
      TargetStateProvider<String> child = mountTarget(ctx, p.targetState("box", "spec"));
      declareTargetState(ctx, child.targetState("r", "v"));
    });
    app.update();
    assertEquals(Map.of("r", "v"), rows.external);
    RuntimeException e = assertThrows(RuntimeException.class, app::update);
    assertTrue(e.getMessage().contains("box"), e.getMessage());
  }

  @Test
  void statusReadsWhileAnUpdateRuns() throws Exception {
    Rows rows = new Rows();
    App[] self = new App[1];
    List<Long> seenTotals = Collections.synchronizedList(new ArrayList<>());
    List<Long> otherTotals = Collections.synchronizedList(new ArrayList<>());
    TargetActionSink<Rows.RowAction> sink = TargetActionSink.of(actions -> {
      seenTotals.add(self[0].status().total());
      Thread t = new Thread(() -> {
        try (App other = App.create("live", Environment.builder().dbPath(dir).build(), c -> {})) {
          otherTotals.add(other.status().total());
        }
      });
      t.start();
      t.join(20_000);
      assertFalse(t.isAlive(), "status from another App blocked by the running update");
    });
    TargetHandler<String, String, Rows.RowAction> h = new TargetHandler<>() {
      @Override
      public TargetReconcileOutput<Rows.RowAction, String> reconcile(StableKey key, String desired,
          List<String> prev, boolean mbm) {
        return TargetReconcileOutput.of(TargetAction.create(new Rows.RowAction("k", desired)), sink, desired);
      }
    };
    self[0] = app("live", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", h);
      ctx.useMount("first", c -> {
        declareTargetState(c, p.targetState("a", "1"));
        return null;
      });
      declareTargetState(ctx, p.targetState("b", "1"));
    });
    self[0].update();
    assertEquals(2, seenTotals.size());
    assertEquals(2, otherTotals.size());
    assertEquals(2, self[0].status().total());
  }

  /** A record a test might track with: a lambda's or generic handler's types are erased. */
  public record Row(String id, int version, List<String> tags) {}

  /**
   * A lambda handler registers and runs: its erased V, R and A are written with their runtime
   * classes, so the handler gets a Row back (not a map), across apps on one store.
   */
  @Test
  void lambdaHandlerRunsWithItsValuesRuntimeClasses() {
    List<List<TargetAction<Row>>> log = Collections.synchronizedList(new ArrayList<>());
    TargetActionSink<Row> sink = TargetActionSink.of(actions -> log.add(List.copyOf(actions)));
    List<List<Row>> prevSeen = Collections.synchronizedList(new ArrayList<>());
    TargetHandler<Row, Row, Row> lambda = (key, desired, prev, mbm) -> {
      prevSeen.add(prev);
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(prev.get(0)), sink, null);
      }
      if (!mbm && prev.equals(List.of(desired))) {
        return null;
      }
      return TargetReconcileOutput.of(prev.isEmpty() ? TargetAction.create(desired)
          : TargetAction.update(desired), sink, desired);
    };
    Row a1 = new Row("a", 1, List.of("x", "y"));
    Row a2 = new Row("a", 2, List.of());
    List<Row> declared = new ArrayList<>(List.of(a1));
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<Row> p = registerRootTargetStatesProvider(ctx, "rows", lambda);
      for (Row r : declared) {
        declareTargetState(ctx, p.targetState(r.id(), r));
      }
    };
    app("lambda", Environment.builder().dbPath(dir).build(), main).update();
    assertEquals(List.of(List.of(TargetAction.create(a1))), log);

    // Another app on the same store (as the next process would be): the record reads as a Row.
    log.clear();
    app("lambda", Environment.builder().dbPath(dir).build(), main).update();
    assertEquals(List.of(), log);
    assertEquals(List.of(a1), prevSeen.get(prevSeen.size() - 1));

    declared.set(0, a2);
    app("lambda", Environment.builder().dbPath(dir).build(), main).update();
    assertEquals(List.of(List.of(TargetAction.update(a2))), log);

    log.clear();
    declared.clear();
    App last = app("lambda", Environment.builder().dbPath(dir).build(), main);
    last.update();
    assertEquals(List.of(List.of(TargetAction.delete(a2))), log);
    assertEquals(0, last.status().total());
  }

  /** A handler class generic in its types, instantiated with erased arguments, runs as well. */
  static final class KeepLatest<V> implements TargetHandler<V, V, V> {
    final List<List<TargetAction<V>>> log = Collections.synchronizedList(new ArrayList<>());
    final TargetActionSink<V> sink = TargetActionSink.of(actions -> log.add(List.copyOf(actions)));

    @Override
    public TargetReconcileOutput<V, V> reconcile(
        StableKey key, V desired, List<V> prev, boolean prevMayBeMissing) {
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(prev.get(0)), sink, null);
      }
      if (!prevMayBeMissing && prev.equals(List.of(desired))) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.create(desired), sink, desired);
    }
  }

  @Test
  void genericHandlerClassRunsWithErasedTypeArguments() {
    KeepLatest<Map<String, List<Long>>> handler = new KeepLatest<>();
    Map<String, List<Long>> value = new HashMap<>(Map.of("b", List.of(2L), "a", List.of(1L, 3L)));
    Consumer<Ctx> main = ctx -> declareTargetState(ctx,
        registerRootTargetStatesProvider(ctx, "maps", handler).targetState("k", value));
    app("generic", Environment.builder().dbPath(dir).build(), main).update();
    assertEquals(List.of(List.of(TargetAction.create(value))), handler.log);
    value.put("c", List.of()); // after the declaration: changes nothing (rule 1)
    assertEquals(List.of(Map.of("a", List.of(1L, 3L), "b", List.of(2L))),
        handler.log.get(0).stream().map(TargetAction::value).toList());

    handler.log.clear();
    value.remove("c");
    app("generic", Environment.builder().dbPath(dir).build(), main).update();
    assertEquals(List.of(), handler.log); // the stored Map<String, List<Long>> equals it again
  }

  /**
   * A lambda child handler of a container declared in the same component: the child's value is
   * declared before the handler is known, and still reaches it as the record declared.
   */
  @Test
  void lambdaChildHandlerGetsValuesDeclaredBeforeItWasKnown() {
    List<List<TargetAction<Row>>> rows = Collections.synchronizedList(new ArrayList<>());
    TargetActionSink<Row> rowSink = TargetActionSink.of(actions -> rows.add(List.copyOf(actions)));
    TargetHandler<Row, Row, Row> child = (key, desired, prev, mbm) ->
        desired == null ? TargetReconcileOutput.of(TargetAction.delete(prev.get(0)), rowSink, null)
            : prev.equals(List.of(desired)) && !mbm ? null
            : TargetReconcileOutput.of(TargetAction.create(desired), rowSink, desired);
    TargetActionSink<String> tables = TargetActionSink.withChildHandler(
        actions -> {}, action -> ChildTargetDef.of(child));
    TargetHandler<String, String, String> table = new TargetHandler<>() {
      @Override
      public TargetReconcileOutput<String, String> reconcile(
          StableKey key, String desired, List<String> prev, boolean prevMayBeMissing) {
        return desired == null
            ? TargetReconcileOutput.of(TargetAction.delete("t"), tables, null)
            : TargetReconcileOutput.of(TargetAction.update(desired), tables, desired);
      }
    };
    Row row = new Row("r", 1, List.of("t"));
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<Row> p = declareTargetStateWithChild(ctx,
          registerRootTargetStatesProvider(ctx, "tables", table).targetState("t", "schema"));
      declareTargetState(ctx, p.targetState("r", row));
    };
    app("pending", Environment.builder().dbPath(dir).build(), main).update();
    assertEquals(List.of(List.of(TargetAction.create(row))), rows);
    rows.clear();
    app("pending", Environment.builder().dbPath(dir).build(), main).update();
    assertEquals(List.of(), rows);
  }

  /** A document as a map, as a port of CocoIndex's Python dicts would declare it. */
  static final class Documents
      implements TargetHandler<Map<String, Object>, Map<String, Object>, Map<String, Object>> {
    final List<List<TargetAction<Map<String, Object>>>> log =
        Collections.synchronizedList(new ArrayList<>());
    final TargetActionSink<Map<String, Object>> sink =
        TargetActionSink.of(actions -> log.add(List.copyOf(actions)));

    @Override
    public TargetReconcileOutput<Map<String, Object>, Map<String, Object>> reconcile(
        StableKey key, Map<String, Object> desired, List<Map<String, Object>> prev,
        boolean prevMayBeMissing) {
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(prev.get(0)), sink, null);
      }
      if (!prevMayBeMissing && prev.equals(List.of(desired))) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.create(desired), sink, desired);
    }
  }

  /**
   * Values typed {@code Map<String, Object>} come back with the classes declared (a Long that
   * fits an int stays a Long, a record stays a record), in the sink and in the next run's
   * records, so an unchanged document is no change.
   */
  @Test
  void mapOfObjectValuesKeepTheirClasses() {
    Documents handler = new Documents();
    Map<String, Object> doc = Map.of("count", 5L, "ratio", 0.5f, "row", new Row("r", 1, List.of()),
        "tags", List.of("a", 2));
    Consumer<Ctx> main = ctx -> declareTargetState(ctx,
        registerRootTargetStatesProvider(ctx, "docs", handler).targetState("d", doc));
    app("docs", Environment.builder().dbPath(dir).build(), main).update();
    assertEquals(List.of(List.of(TargetAction.create(doc))), handler.log);
    assertEquals(Long.class, handler.log.get(0).get(0).value().get("count").getClass());
    handler.log.clear();
    app("docs", Environment.builder().dbPath(dir).build(), main).update();
    assertEquals(List.of(), handler.log);
  }
}
