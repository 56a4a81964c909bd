package io.cocoindex.reliability;

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
import io.cocoindex.runtime.codec.HandlerTypes;
import io.cocoindex.samples.localfs.DirAction;
import io.cocoindex.samples.localfs.DirSpec;
import io.cocoindex.samples.localfs.Entry;
import io.cocoindex.samples.localfs.EntryAction;
import io.cocoindex.samples.localfs.EntryRecord;
import io.cocoindex.samples.sqlite.AttachmentAction;
import io.cocoindex.samples.sqlite.FullTextIndex;
import io.cocoindex.samples.sqlite.IndexSpec;
import io.cocoindex.samples.sqlite.Row;
import io.cocoindex.samples.sqlite.RowAction;
import io.cocoindex.samples.sqlite.SqlCommand;
import io.cocoindex.samples.sqlite.TableAction;
import io.cocoindex.samples.sqlite.TableRecord;
import io.cocoindex.samples.sqlite.TableSpec;
import io.cocoindex.spi.DeclarationScope;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Puts a {@link SinkHook} between the engine and the real sinks of the SQLite and localfs
 * connectors, without touching connector code: a {@link Ctx} decorator wraps the root handler a
 * connector registers ({@code Sqlite.register(interposer.ctx(ctx), DB)}); the wrapped handler
 * wraps every sink it returns (one wrapper per sink identity, so batching is unchanged), every
 * child handler its container sinks build, and every attachment handler. The wrappers are
 * concrete classes per connector type because the engine picks codecs from a handler's generic
 * signature.
 */
final class Interposer {
  /** Runs (or not) one sink batch; {@code real.apply} is the connector's own sink. */
  interface SinkHook {
    <A> void apply(RealSink<A> real, List<TargetAction<A>> actions) throws Exception;
  }

  /**
   * Told what a wrapped handler was given and what it returned: {@code connector} is
   * {@code "sqlite"} or {@code "localfs"}, {@code out} null when it returned nothing to do.
   */
  interface ReconcileHook {
    /**
     * @param container the container whose children's handler reconciled ({@link
     *     #containerOf} of its action), null for a root provider's handler
     */
    void reconciled(String connector, String container, StableKey key, boolean declared,
        int prev, boolean prevMayBeMissing, TargetReconcileOutput<?, ?> out);

    /** The children's handler of {@code container} found them invalidated (a directory gone). */
    default void invalidationFound(String container) {}
  }

  /** A container as the hooks name it: the value of its action, by content. */
  static String containerOf(Object actionValue) {
    return ActionText.of(actionValue);
  }

  /** The connector's sink as the hook sees it. */
  record RealSink<A>(TargetActionSink<A> sink, String kind) {
    void apply(List<TargetAction<A>> actions) throws Exception {
      try {
        sink.applyAsync(actions).toCompletableFuture().join();
      } catch (CompletionException e) {
        Throwable c = e.getCause();
        if (c instanceof Exception ex) {
          throw ex;
        }
        throw e;
      }
    }
  }

  private final SinkHook hook;
  private final ReconcileHook reconcileHook;
  private final Map<TargetActionSink<?>, TargetActionSink<?>> sinks = new ConcurrentHashMap<>();

  Interposer(SinkHook hook) {
    this(hook, null);
  }

  /** {@code reconcileHook} (null for none) hears every reconcile of a wrapped handler. */
  Interposer(SinkHook hook, ReconcileHook reconcileHook) {
    this.hook = hook;
    this.reconcileHook = reconcileHook;
  }

  /** A ctx whose root-provider registrations get wrapped handlers; use it only to register. */
  Ctx ctx(Ctx real) {
    return new RegisteringCtx(real);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  <A> TargetActionSink<A> sink(TargetActionSink<A> real, String kind) {
    return (TargetActionSink<A>) sinks.computeIfAbsent(real, r -> {
      RealSink<A> rs = new RealSink<>(real, kind);
      if (real.childHandlerFactory().isPresent()) {
        ChildHandlerFactory<A> f = real.childHandlerFactory().get();
        return TargetActionSink.<A>withChildHandler(
            actions -> hook.apply(rs, actions),
            action -> wrapDef(f.childHandler(action), containerOf(action)));
      }
      return TargetActionSink.<A>of(actions -> hook.apply(rs, actions));
    });
  }

  /** {@code def}'s handler wrapped, as the children's handler of {@code container}. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  ChildTargetDef<?> wrapDef(ChildTargetDef<?> def, String container) {
    TargetHandler<?, ?, ?> h = def.handler();
    TargetHandler<?, ?, ?> w = wrap(h);
    if (w != h) {
      ((Wrapped<?, ?, ?>) w).container = container;
    }
    return ChildTargetDef.of((TargetHandler) w);
  }

  /** The wrapper of a connector handler, chosen by its generic signature. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  TargetHandler<?, ?, ?> wrap(TargetHandler<?, ?, ?> h) {
    if (h instanceof Wrapped) {
      return h;
    }
    HandlerTypes t = HandlerTypes.of(h);
    Type a = t.action();
    Type v = t.value();
    if (a == TableAction.class) {
      return new TableH((TargetHandler) h, this);
    } else if (a == RowAction.class) {
      return new RowH((TargetHandler) h, this);
    } else if (a == AttachmentAction.class && v == IndexSpec.class) {
      return new IndexH((TargetHandler) h, this);
    } else if (a == AttachmentAction.class && v == FullTextIndex.class) {
      return new FtsH((TargetHandler) h, this);
    } else if (a == AttachmentAction.class && v == SqlCommand.class) {
      return new SqlCommandH((TargetHandler) h, this);
    } else if (a == DirAction.class) {
      return new DirH((TargetHandler) h, this);
    } else if (a == EntryAction.class) {
      return new EntryH((TargetHandler) h, this);
    }
    throw new IllegalArgumentException("no interposer for handler " + h.getClass().getName());
  }

  /** Delegates reconcile and attachments, swapping sinks and child handlers for wrapped ones. */
  abstract static class Wrapped<V, R, A> implements TargetHandler<V, R, A> {
    private final TargetHandler<V, R, A> delegate;
    private final Interposer interposer;
    private final String kind;
    /** The container whose children this handler reconciles; null for a root provider's. */
    private volatile String container;

    Wrapped(TargetHandler<V, R, A> delegate, Interposer interposer, String kind) {
      this.delegate = delegate;
      this.interposer = interposer;
      this.kind = kind;
    }

    @Override
    public TargetReconcileOutput<A, R> reconcile(
        StableKey key, V desired, List<R> prev, boolean prevMayBeMissing) throws Exception {
      TargetReconcileOutput<A, R> out = delegate.reconcile(key, desired, prev, prevMayBeMissing);
      if (interposer.reconcileHook != null) {
        interposer.reconcileHook.reconciled(kind.substring(0, kind.indexOf(' ')), container,
            key, desired != null, prev.size(), prevMayBeMissing, out);
      }
      if (out == null) {
        return null;
      }
      return new TargetReconcileOutput<>(out.action(), interposer.sink(out.sink(), kind),
          out.trackingRecord(), out.childInvalidation());
    }

    /** What the connector's children's handler found (a directory missing), passed on. */
    @Override
    public TargetChildInvalidation childInvalidationFound() {
      TargetChildInvalidation found = delegate.childInvalidationFound();
      if (found != null && interposer.reconcileHook != null) {
        interposer.reconcileHook.invalidationFound(container);
      }
      return found;
    }

    @Override
    public Map<String, ChildTargetDef<?>> attachments() {
      Map<String, ChildTargetDef<?>> out = new LinkedHashMap<>();
      // An attachment goes with its holder's container (a table's index with its rows).
      delegate.attachments().forEach(
          (type, def) -> out.put(type, interposer.wrapDef(def, container)));
      return out;
    }
  }

  static final class TableH extends Wrapped<TableSpec, TableRecord, TableAction> {
    TableH(TargetHandler<TableSpec, TableRecord, TableAction> d, Interposer i) {
      super(d, i, "sqlite table");
    }
  }

  static final class RowH extends Wrapped<Row, Fingerprint, RowAction> {
    RowH(TargetHandler<Row, Fingerprint, RowAction> d, Interposer i) {
      super(d, i, "sqlite row");
    }
  }

  static final class IndexH extends Wrapped<IndexSpec, IndexSpec, AttachmentAction> {
    IndexH(TargetHandler<IndexSpec, IndexSpec, AttachmentAction> d, Interposer i) {
      super(d, i, "sqlite index");
    }
  }

  static final class FtsH extends Wrapped<FullTextIndex, FullTextIndex, AttachmentAction> {
    FtsH(TargetHandler<FullTextIndex, FullTextIndex, AttachmentAction> d, Interposer i) {
      super(d, i, "sqlite fts");
    }
  }

  static final class SqlCommandH extends Wrapped<SqlCommand, SqlCommand, AttachmentAction> {
    SqlCommandH(TargetHandler<SqlCommand, SqlCommand, AttachmentAction> d, Interposer i) {
      super(d, i, "sqlite sql command");
    }
  }

  static final class DirH extends Wrapped<DirSpec, DirSpec, DirAction> {
    DirH(TargetHandler<DirSpec, DirSpec, DirAction> d, Interposer i) {
      super(d, i, "localfs dir");
    }
  }

  static final class EntryH extends Wrapped<Entry, EntryRecord, EntryAction> {
    EntryH(TargetHandler<Entry, EntryRecord, EntryAction> d, Interposer i) {
      super(d, i, "localfs entry");
    }
  }

  /** Delegates everything to the runtime's ctx, wrapping the handlers registered through it. */
  private final class RegisteringCtx implements Ctx, DeclarationScope {
    private final Ctx real;

    RegisteringCtx(Ctx real) {
      this.real = real;
    }

    private DeclarationScope scope() {
      return (DeclarationScope) real;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public <V> TargetStateProvider<V> registerRootProvider(
        String name, TargetHandler<V, ?, ?> handler) {
      return scope().registerRootProvider(name, (TargetHandler) wrap(handler));
    }

    @Override
    public <V> void declare(TargetState<V> ts) {
      scope().declare(ts);
    }

    @Override
    public <V, C> TargetStateProvider<C> declareWithChild(TargetState<V> parent) {
      return scope().declareWithChild(parent);
    }

    @Override
    public <V, C> TargetStateProvider<C> mountTarget(TargetState<V> parent) {
      return scope().mountTarget(parent);
    }

    @Override
    public <T> T get(ContextKey<T> key) {
      return real.get(key);
    }

    @Override
    public void mount(Object subpath, Consumer<Ctx> component) {
      real.mount(subpath, component);
    }

    @Override
    public <T> T useMount(Object subpath, Function<Ctx, T> component) {
      return real.useMount(subpath, component);
    }

    @Override
    public void mountMemo(Object subpath, Object input, Consumer<Ctx> component) {
      real.mountMemo(subpath, input, component);
    }

    @Override
    public <I, T> T memo(String function, I input, Class<T> resultType, Function<I, T> compute) {
      return real.memo(function, input, resultType, compute);
    }

    @Override
    public String appName() {
      return real.appName();
    }

    @Override
    public List<StableKey> path() {
      return real.path();
    }
  }
}
