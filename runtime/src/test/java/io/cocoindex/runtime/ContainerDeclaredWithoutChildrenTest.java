package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateStoreException;
import io.cocoindex.runtime.state.StateWrite;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A container (table docs) declared in a run without children, as a directory that became a
 * file: its action takes every row below it along, those of the components that failed in that
 * run included. Once docs has children again, every row declared in it is written again, however
 * the run that took them along ended after docs's commit: its sweep refused by a deletion limit,
 * stopped by a write that failed, lost in a crash, or the run stopped before it. The healthy component h declares h1 in
 * docs; m (plain or memoized) declares r1 there, and fails while docs has no children.
 */
class ContainerDeclaredWithoutChildrenTest extends EngineTestBase {
  /** Docs in "tables", with children or without them ({@link TableDocs#withChildren}). */
  final TableDocs docs = TableDocs.ofRows();
  final Rows rows = docs.rows;
  final Tables tables = docs.tables;
  /** Root rows x1, x2 on their own provider: their removal is what a deletion limit weighs. */
  final Rows others = new Rows();
  boolean withOthers = true;
  /** The rows m declares in docs. */
  List<String> mRows = List.of("r1");
  /** Whether component d declares docs, not the root (which commits after its children). */
  boolean docsInD;
  /** Component z stops the run (a fatal error) once docs's action is applied and committed. */
  boolean stopAfterDocsCommit;
  /** Counted down as docs's action is reported applied and committed (by its listener). */
  volatile CountDownLatch docsCommitted = new CountDownLatch(1);

  @RegisterExtension final SweepChunks sweepChunks = new SweepChunks();

  void main(Ctx ctx, boolean memoized) {
    TargetStateProvider<Tables.TableSpec> p = docs.register(ctx);
    TargetStateProvider<String> x = registerRootTargetStatesProvider(ctx, "others", others.handler);
    if (withOthers) {
      declareTargetState(ctx, x.targetState("x1", "v1"));
      declareTargetState(ctx, x.targetState("x2", "v1"));
    }
    Function<Ctx, TargetStateProvider<String>> declareDocs = c -> docs.declareDocs(c, p);
    TargetStateProvider<String> rowsOf =
        docsInD ? ctx.useMount("d", declareDocs) : declareDocs.apply(ctx);
    if (stopAfterDocsCommit) {
      ctx.mount("z", z -> {
        try {
          assertThat(docsCommitted.await(30, TimeUnit.SECONDS)).as("docs's commit").isTrue();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new InternalError("scripted fatal error: the run stops");
      });
    }
    ctx.mount("h", h -> {
      if (rowsOf != null) {
        declareTargetState(h, rowsOf.targetState("h1", "v1"));
      }
    });
    List<String> own = List.copyOf(mRows);
    Consumer<Ctx> m = c -> {
      if (rowsOf == null) {
        throw new IllegalStateException("scripted failure of m");
      }
      own.forEach(k -> declareTargetState(c, rowsOf.targetState(k, "v1")));
    };
    if (memoized) {
      ctx.mountMemo("m", "i1", m);
    } else {
      ctx.mount("m", m);
    }
  }

  /** A store whose writes a test can fail, or lose from a chosen write on, as a crash would. */
  static final class Store extends ForwardingStateStore {
    volatile Predicate<List<StateWrite>> failWrite = w -> false;
    /** The first write this picks, and everything the process does after it, is lost. */
    volatile Predicate<List<StateWrite>> dieAt = w -> false;
    volatile boolean dead;
    /** The DeleteTree writes' sizes, one per write that has any. */
    final List<Integer> forgetWrites = Collections.synchronizedList(new ArrayList<>());

    Store(StateStore delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
      if (dead || dieAt.test(writes)) {
        dead = true;
        return CompletableFuture.completedFuture(null);
      }
      if (failWrite.test(writes)) {
        return CompletableFuture.failedFuture(
            new StateStoreException("injected write failure"));
      }
      int trees = deleteTrees(writes);
      if (trees > 0) {
        forgetWrites.add(trees);
      }
      return super.write(app, writes);
    }

    @Override
    public void runSettled(String app, long version) {
      if (!dead) {
        super.runSettled(app, version);
      }
    }

    @Override
    public void runEnded(String app, long version) {
      if (!dead) {
        super.runEnded(app, version);
      }
    }
  }

  static int deleteTrees(List<StateWrite> writes) {
    return (int) writes.stream().filter(w -> w instanceof StateWrite.DeleteTree).count();
  }

  App app(Store store, boolean memoized) {
    Environment env = Environment.builder().stateStore(store).listener((provider, key, action) -> {
      if (provider.equals("tables") && key.equals(StableKey.of("docs"))) {
        docsCommitted.countDown();
      }
    }).build();
    return App.create("taken", env, ctx -> main(ctx, memoized));
  }

  /** Run 1: docs with h1 and m's rows, and x1, x2. */
  void firstRun(App app) {
    app.update();
    assertThat(tables.takeLog()).containsExactly("ensure docs");
    assertThat(rows.takeLog()).hasSize(1 + mRows.size()).contains("create h1=v1");
    assertThat(others.takeLog()).containsExactly("create x1=v1", "create x2=v1");
  }

  /** The run after: docs has children again, and every row in it is written again. */
  void docsHasChildrenAgain(App app) {
    docs.withChildren = true;
    app.update();
    List<String> expected = new ArrayList<>(List.of("create h1=v1"));
    mRows.forEach(k -> expected.add("create " + k + "=v1"));
    assertThat(rows.takeLog()).as("the rows docs's action took along")
        .containsExactlyInAnyOrderElementsOf(expected);
    List<StableKey> tracked = new ArrayList<>();
    expected.forEach(e -> tracked.add(StableKey.of(e.substring(7, e.indexOf('=')))));
    assertThat(app.status().providers().get("tables/docs"))
        .containsExactlyInAnyOrderElementsOf(tracked);

    app.update();
    assertThat(rows.takeLog()).as("quiet").isEmpty();
  }

  @ParameterizedTest(name = "memoized: {0}")
  @ValueSource(booleans = {false, true})
  void rowsTakenAlongAreWrittenAgainAfterASweepTheDeletionLimitRefused(boolean memoized) {
    Store store = new Store(store());
    try (App app = app(store, memoized)) {
      firstRun(app);

      docs.withChildren = false;
      withOthers = false;
      assertThatThrownBy(() -> app.update(UpdateOptions.defaults().withDeletionLimit(1)))
          .isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("scripted failure of m");
      assertThat(tables.takeLog()).containsExactly("ensure docs");
      assertThat(others.takeLog()).as("refused").isEmpty();
      assertThat(app.status().providers().get("tables/docs"))
          .as("m's row forgotten all the same; h's left to the sweep the limit refused")
          .containsExactly(StableKey.of("h1"));

      withOthers = true;
      docsHasChildrenAgain(app);
      assertThat(others.takeLog()).isEmpty();
    }
  }

  @ParameterizedTest(name = "memoized: {0}")
  @ValueSource(booleans = {false, true})
  void rowsTakenAlongAreWrittenAgainAfterASweepStoppedByAFailedWrite(boolean memoized) {
    Store store = new Store(store());
    try (App app = app(store, memoized)) {
      firstRun(app);

      docs.withChildren = false;
      store.failWrite = w -> deleteTrees(w) > 0;
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("scripted failure of m");
      assertThat(tables.takeLog()).containsExactly("ensure docs");

      store.failWrite = w -> false;
      docsHasChildrenAgain(app);
    }
  }

  @ParameterizedTest(name = "memoized: {0}")
  @ValueSource(booleans = {false, true})
  void rowsTakenAlongAreWrittenAgainAfterACrashBeforeTheSweepForgotThem(boolean memoized) {
    Store store = new Store(store());
    try (App app = app(store, memoized)) {
      firstRun(app);

      // The process dies as the sweep writes what it forgets: docs's commit landed before.
      docs.withChildren = false;
      store.dieAt = w -> deleteTrees(w) > 0;
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("scripted failure of m");
      assertThat(store.dead).isTrue();
      assertThat(tables.takeLog()).containsExactly("ensure docs");

      store.dead = false;
      store.dieAt = w -> false;
      docsHasChildrenAgain(app);
    }
  }

  /** The run stops (a fatal error) once docs's commit has landed: no sweep runs. */
  @ParameterizedTest(name = "memoized: {0}")
  @ValueSource(booleans = {false, true})
  void rowsTakenAlongAreWrittenAgainAfterARunStoppedBeforeItsSweep(boolean memoized) {
    docsInD = true;
    Store store = new Store(store());
    try (App app = app(store, memoized)) {
      firstRun(app);

      docs.withChildren = false;
      stopAfterDocsCommit = true;
      docsCommitted = new CountDownLatch(1);
      assertThatThrownBy(app::update).hasMessageContaining("scripted fatal error");
      assertThat(tables.takeLog()).containsExactly("ensure docs");
      assertThat(app.status().providers().get("tables/docs")).as("nothing swept")
          .containsExactlyInAnyOrder(StableKey.of("h1"), StableKey.of("r1"));

      stopAfterDocsCommit = false;
      docsHasChildrenAgain(app);
    }
  }

  /**
   * docs's own action fails: its rows are not forgotten, and the next run resolving docs's
   * children writes each again, once. The sink here threw before doing anything, but one that
   * throws may have applied part of its batch (a directory removed before the file's write
   * failed): docs's records then name both its forms, and its children may be gone, as after a
   * crash between the apply and the commit (see {@code Reconciliation#precommit}).
   */
  @ParameterizedTest(name = "memoized: {0}")
  @ValueSource(booleans = {false, true})
  void rowsOfAContainerWhoseActionFailedStayTrackedAndAreWrittenAgain(boolean memoized) {
    Store store = new Store(store());
    try (App app = app(store, memoized)) {
      firstRun(app);

      docs.withChildren = false;
      tables.failCreate = true;
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("scripted failure creating table docs");
      assertThat(app.status().providers().get("tables/docs"))
          .containsExactlyInAnyOrder(StableKey.of("h1"), StableKey.of("r1"));
      assertThat(rows.takeLog()).isEmpty();
      rows.takeCalls();

      tables.failCreate = false;
      docs.withChildren = true;
      app.update();
      assertThat(rows.takeLog()).as("each row written again, as it may be missing")
          .containsExactly("update h1=v1", "update r1=v1");
      assertThat(rows.takeCalls()).extracting(Rows.Call::toString).containsExactly(
          "h1 desired=v1 prev=[v1] mbm=true", "r1 desired=v1 prev=[v1] mbm=true");
      assertThat(app.status().providers().get("tables/docs"))
          .containsExactlyInAnyOrder(StableKey.of("h1"), StableKey.of("r1"));
      app.update();
      assertThat(rows.takeLog()).isEmpty();
    }
  }

  /**
   * m, failing, tracks many rows below docs: the sweep forgets them a chunk at a time, each
   * chunk its own write; a chunk whose write fails leaves its rows, and the later ones, to be
   * written again all the same.
   */
  @ParameterizedTest(name = "a chunk's write fails: {0}")
  @ValueSource(booleans = {false, true})
  void aFailedComponentsRowsBelowAFormerContainerAreForgottenInChunks(boolean chunkFails) {
    int chunk = 8;
    sweepChunks.set(chunk);
    mRows = IntStream.range(0, 5 * chunk + 3).mapToObj(i -> String.format("r%03d", i)).toList();
    Store store = new Store(store());
    try (App app = app(store, false)) {
      firstRun(app);

      docs.withChildren = false;
      AtomicInteger forgetWrites = new AtomicInteger();
      if (chunkFails) {
        store.failWrite = w -> deleteTrees(w) > 0 && forgetWrites.incrementAndGet() == 3;
      }
      store.forgetWrites.clear();
      assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
          .hasMessageContaining("scripted failure of m");
      assertThat(store.forgetWrites).as("rows forgotten per write")
          .allMatch(n -> n <= chunk).hasSizeGreaterThanOrEqualTo(chunkFails ? 2 : 5);
      if (!chunkFails) {
        assertThat(app.status().providers()).as("every row of m forgotten")
            .doesNotContainKey("tables/docs");
      }

      store.failWrite = w -> false;
      docsHasChildrenAgain(app);
    }
  }
}
