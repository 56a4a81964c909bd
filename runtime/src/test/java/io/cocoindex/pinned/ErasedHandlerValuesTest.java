package io.cocoindex.pinned;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.declareTargetStateWithChild;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values of handlers whose types are erased (lambdas), as an outside test author declares them:
 * each reaches the handler and the sink as the class declared, across apps on one store.
 */
class ErasedHandlerValuesTest {
  @TempDir Path dir;

  private App app(Consumer<Ctx> main) {
    return App.create("erased", Environment.builder().dbPath(dir).build(), main);
  }

  /** Keeps the latest value; logs "kind value" per action, and the values themselves. */
  private static <V> TargetHandler<V, V, V> keepLatest(List<Object> applied) {
    TargetActionSink<V> sink = TargetActionSink.of(actions -> {
      for (TargetAction<V> a : actions) {
        applied.add(a);
      }
    });
    return (key, desired, prev, mbm) -> {
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(prev.get(0)), sink, null);
      }
      if (!mbm && prev.equals(List.of(desired))) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.create(desired), sink, desired);
    };
  }

  /**
   * A lambda typed {@code ArrayList<String>} casts what it gets to ArrayList (the compiler puts
   * the cast in): the value, the previous records and the sink's actions are ArrayLists. Every
   * list read back unmodifiable, so this failed with a ClassCastException in reconcile.
   */
  @Test
  void aLambdaTypedWithAConcreteCollectionGetsThatClass() {
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    List<Object> applied = Collections.synchronizedList(new ArrayList<>());
    TargetActionSink<ArrayList<String>> sink = TargetActionSink.of(actions -> {
      for (TargetAction<ArrayList<String>> a : actions) {
        ArrayList<String> v = a.value();
        applied.add(v);
      }
    });
    TargetHandler<ArrayList<String>, ArrayList<String>, ArrayList<String>> h =
        (key, desired, prev, mbm) -> {
          ArrayList<String> d = desired;
          seen.add(d.get(0));
          for (ArrayList<String> p : prev) {
            seen.add("prev " + p.get(0));
          }
          return prev.contains(d) ? null : TargetReconcileOutput.of(TargetAction.create(d), sink, d);
        };
    ArrayList<String> value = new ArrayList<>(List.of("a", "b"));
    Consumer<Ctx> main = ctx -> declareTargetState(ctx,
        registerRootTargetStatesProvider(ctx, "lists", h).targetState("k", value));
    try (App app = app(main)) {
      app.update();
    }
    value.add("c"); // after the declaration: changes nothing (rule 1)
    assertEquals(List.of(List.of("a", "b")), applied);
    assertEquals(ArrayList.class, applied.get(0).getClass());
    value.remove("c");
    try (App app = app(main)) {
      app.update();
    }
    assertEquals(List.of("a", "a", "prev a"), seen);
    assertEquals(1, applied.size());
  }

  record Row(String id, Map<String, Object> extra, Object any) {}

  /**
   * A child declared on a container declared in the same component, before its lambda handler is
   * known, reaches it as declared: a Long in a {@code Map<String, Object>} stays a Long, a list
   * stays the class it was. It was encoded by the codec of its own class (Jackson), which read
   * the Long back as an Integer, and every list as unmodifiable.
   */
  @Test
  void aChildDeclaredBeforeItsLambdaHandlerWasKnownKeepsItsClasses() {
    List<Object> rows = Collections.synchronizedList(new ArrayList<>());
    TargetHandler<Object, Object, Object> child = keepLatest(rows);
    TargetActionSink<String> tables =
        TargetActionSink.withChildHandler(actions -> {}, action -> ChildTargetDef.of(child));
    TargetHandler<String, String, String> table = (key, desired, prev, mbm) -> desired == null
        ? TargetReconcileOutput.of(TargetAction.delete(prev.get(0)), tables, null)
        : TargetReconcileOutput.of(TargetAction.update(desired), tables, desired);
    Map<String, Object> extra = new HashMap<>();
    extra.put("long", 1L);
    extra.put("int", 2);
    Row row = new Row("r", extra, new ArrayList<>(List.of(3L, 4)));
    ArrayList<Object> list = new ArrayList<>(List.of(5L));
    Consumer<Ctx> main = ctx -> {
      TargetStateProvider<Object> p = declareTargetStateWithChild(ctx,
          registerRootTargetStatesProvider(ctx, "tables", table).targetState("t", "schema"));
      declareTargetState(ctx, p.targetState("row", row));
      declareTargetState(ctx, p.targetState("list", list));
    };
    try (App app = app(main)) {
      app.update();
      assertEquals(Map.of("tables", List.of(StableKey.of("t")),
          "tables/t", List.of(StableKey.of("list"), StableKey.of("row"))), app.status().providers());
    }
    Map<Object, Object> byKind = new HashMap<>();
    for (Object a : rows) {
      Object v = ((TargetAction<?>) a).value();
      byKind.put(v.getClass(), v);
    }
    assertEquals(Map.of(Row.class, row, ArrayList.class, list), byKind);
    Row back = (Row) byKind.get(Row.class);
    assertEquals(Long.class, back.extra().get("long").getClass());
    assertEquals(Integer.class, back.extra().get("int").getClass());
    assertEquals(ArrayList.class, back.any().getClass());
    assertEquals(List.of(Long.class, Integer.class),
        ((List<?>) back.any()).stream().map(Object::getClass).toList());

    rows.clear();
    try (App app = app(main)) {
      app.update();
    }
    assertEquals(List.of(), rows); // the stored records equal the declared values again
  }

  /**
   * A value of an anonymous class is refused at its declaration, with an error saying why; it
   * had been accepted and failed on reading it back, with advice about changed record types.
   */
  @Test
  void anAnonymousClassValueIsAClearError() {
    List<Object> applied = new ArrayList<>();
    TargetHandler<Object, Object, Object> h = keepLatest(applied);
    Object anonymous = new Object() {
      @Override
      public String toString() {
        return "anonymous";
      }
    };
    try (App app = app(ctx -> declareTargetState(ctx,
        registerRootTargetStatesProvider(ctx, "anon", h).targetState("k", anonymous)))) {
      UpdateFailedException e = assertThrows(UpdateFailedException.class, app::update);
      String message = e.failures().get(0).error().getMessage();
      assertTrue(message.contains(anonymous.getClass().getName())
          && message.contains("anonymous class") && !message.contains("dropState"), message);
      assertTrue(message.startsWith("cannot declare key \"k\" on provider 'anon': "), message);
      assertEquals(List.of(), applied);
      assertEquals(0, app.status().total());
    }
  }
}
