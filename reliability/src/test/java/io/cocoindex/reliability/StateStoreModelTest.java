package io.cocoindex.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.plan.TargetPath;
import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.StateWrites;
import io.cocoindex.runtime.state.TrackedState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

/**
 * The embedded state store against a model of what it must hold: random runs of writes (the
 * engine's precommits, settles and confirms, deletions of states, of trees and of what is below a
 * state, by four
 * components over a tree of containers and their children, records large enough to split a
 * component's chunks), each run recorded as settled or not, the store closed and opened again
 * now and then. After every write the store must read back exactly the model: each state, the
 * states of each owner, and a scan of every subtree. The model applies the same read-modify-write
 * rules ({@link StateWrites}, which every store shares) to a plain sorted map, and resolves a
 * row's records as a settled run does (its newest record alone, once that run is settled), so
 * what is tested is the store's own storage: states packed in chunks per owner, the owners'
 * ranges of paths, the read ahead of the owners that follow one, rows resolved from what the
 * engine loaded, settled runs.
 *
 * <p>The writes keep the engine's contract: one write per path in a batch, none inside a tree
 * the batch deletes; one precommit per path in a run; a settle only in the run of its precommit
 * and right after it; a precommit or confirm given the row as it is ({@code loaded}).
 */
class StateStoreModelTest {
  private static final String APP = "model";
  private static final int OWNERS = 4;

  /** One write, chosen by numbers that are read against the model when it is applied. */
  record Op(int kind, int path, int owner, int size, int flag) {}

  /** A run: its batches of writes, whether it ends settled, whether the store reopens after. */
  record Run(List<List<Op>> batches, boolean settled, boolean reopen) {}

  @Property(seed = "20261205", tries = 60, edgeCases = EdgeCasesMode.NONE)
  void theEmbeddedStoreReadsBackWhatTheModelHolds(@ForAll("runs") List<Run> runs)
      throws Exception {
    new Scenario(false).play(runs);
  }

  /**
   * The shared store: no settled runs, every earlier run ended, settles naming the records they
   * supersede. Needs {@code COCOINDEX_TEST_POSTGRES_URL} (skipped without it, failing under CI).
   */
  @Property(seed = "20261205", tries = 25, edgeCases = EdgeCasesMode.NONE)
  @AddLifecycleHook(NeedsPostgres.class)
  void theSharedStoreReadsBackWhatTheModelHolds(@ForAll("runs") List<Run> runs)
      throws Exception {
    new Scenario(true).play(runs);
  }

  /** More tries with a random seed: {@code -Dreliability.excludedGroups=none -Dgroups=soak}. */
  @Property(tries = 600, edgeCases = EdgeCasesMode.NONE)
  @Tag("soak")
  void soak(@ForAll("runs") List<Run> runs) throws Exception {
    new Scenario(false).play(runs);
  }

  /** As {@link #soak}, on the shared store. */
  @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
  @Tag("soak")
  @AddLifecycleHook(NeedsPostgres.class)
  void soakShared(@ForAll("runs") List<Run> runs) throws Exception {
    new Scenario(true).play(runs);
  }

  static String postgresUrl() {
    return System.getenv("COCOINDEX_TEST_POSTGRES_URL");
  }

  /** Skips a property on the shared store without a server; under CI, one must be there. */
  public static final class NeedsPostgres implements SkipExecutionHook {
    @Override
    public SkipResult shouldBeSkipped(LifecycleContext context) {
      if (postgresUrl() != null) {
        return SkipResult.doNotSkip();
      }
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError("COCOINDEX_TEST_POSTGRES_URL is not set but CI=true");
      }
      return SkipResult.skip("COCOINDEX_TEST_POSTGRES_URL is not set");
    }
  }

  @Provide
  Arbitrary<List<Run>> runs() {
    Arbitrary<Op> op = Combinators.combine(
        Arbitraries.frequency(
            net.jqwik.api.Tuple.of(6, 0), net.jqwik.api.Tuple.of(4, 1),
            net.jqwik.api.Tuple.of(2, 2), net.jqwik.api.Tuple.of(1, 3),
            net.jqwik.api.Tuple.of(1, 4), net.jqwik.api.Tuple.of(3, 5),
            net.jqwik.api.Tuple.of(1, 6), net.jqwik.api.Tuple.of(1, 7),
            net.jqwik.api.Tuple.of(1, 8)),
        Arbitraries.integers().between(0, 10_000), Arbitraries.integers().between(0, OWNERS - 1),
        Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, 9))
        .as(Op::new);
    Arbitrary<List<Op>> batch = op.list().ofMinSize(1).ofMaxSize(40);
    Arbitrary<Run> run = Combinators.combine(batch.list().ofMinSize(1).ofMaxSize(4),
            Arbitraries.of(true, true, false), Arbitraries.integers().between(0, 5))
        .as((b, s, r) -> new Run(b, s, r == 0));
    return run.list().ofMinSize(1).ofMaxSize(8);
  }

  /** The paths: tables, their rows, and rows' children (containers of containers). */
  static final List<byte[]> PATHS = paths();

  private static List<byte[]> paths() {
    List<byte[]> out = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      TargetPath table = TargetPath.ROOT.child(StableKey.symbol("tables"))
          .child(StableKey.of("t" + t));
      out.add(table.encoded());
      for (int r = 0; r < 40; r++) {
        TargetPath row = table.child(StableKey.of((long) r));
        out.add(row.encoded());
        if (r % 10 == 0) {
          for (int c = 0; c < 3; c++) {
            out.add(row.child(StableKey.symbol("index")).child(StableKey.of("i" + c)).encoded());
          }
        }
      }
    }
    out.sort(Arrays::compareUnsigned);
    return out;
  }

  static byte[] owner(int i) {
    return TargetPath.ROOT.child(StableKey.of("component" + i)).encoded();
  }

  /** The components whose records are written: the owners, and a child of each. */
  static final List<byte[]> COMPONENTS = components();

  private static List<byte[]> components() {
    List<byte[]> out = new ArrayList<>();
    for (int o = 0; o < OWNERS; o++) {
      out.add(owner(o));
      out.add(TargetPath.decode(owner(o)).child(StableKey.of("part")).encoded());
    }
    out.sort(Arrays::compareUnsigned);
    return out;
  }

  static final boolean TRACE = Boolean.getBoolean("trace");

  static String describeWrite(StateWrite w) {
    if (w instanceof StateWrite.Precommit p) {
      return "precommit " + Scenario.describe(p.state()) + " entry " + p.entry().version() + ":"
          + (p.entry().isNone() ? "none" : "rec") + " fresh " + p.fresh() + " loaded "
          + Scenario.describe(p.loaded());
    } else if (w instanceof StateWrite.Settle st) {
      return "settle " + Scenario.show(st.state().path()) + " v" + st.version() + " drop "
          + st.dropDescendants();
    } else if (w instanceof StateWrite.Confirm c) {
      return "confirm " + Scenario.describe(c.state());
    } else if (w instanceof StateWrite.DeleteState d) {
      return "delete " + Scenario.show(d.path());
    } else if (w instanceof StateWrite.DeleteBelow b && b.owners() != null) {
      return "deleteBelow " + Scenario.show(b.path()) + " of "
          + b.owners().stream().map(Scenario::show).toList();
    } else if (w instanceof StateWrite.DeleteBelow b) {
      return "deleteBelow " + Scenario.show(b.path());
    }
    return "deleteTree " + Scenario.show(((StateWrite.DeleteTree) w).path());
  }

  static final class Scenario {
    /** Whether the store is PostgreSQL's, shared by workers (else the embedded one). */
    private final boolean shared;
    private Path dir;
    private String schema;
    private StateStore store;
    private AutoCloseable lock;
    /** The model: every stored row, with its records unresolved, in path order. */
    private final TreeMap<byte[], TrackedState> rows = new TreeMap<>(Arrays::compareUnsigned);
    private final Set<Long> settled = new HashSet<>();
    /** The precommit each path's last write was, if it was one: only it may be settled. */
    private final Map<ByteKey, StateWrite.Precommit> pending = new HashMap<>();
    /** The paths precommitted in this run: once each, as a run version's records are one. */
    private final Set<ByteKey> precommittedInRun = new HashSet<>();
    /** The model's component records, with their memos as written (marks and stamps too). */
    private final TreeMap<byte[], ComponentRecord> componentRecords =
        new TreeMap<>(Arrays::compareUnsigned);
    /** The version of the run going on. */
    private long version;

    Scenario(boolean shared) {
      this.shared = shared;
    }

    void play(List<Run> runs) throws Exception {
      if (shared) {
        schema = "m_" + java.util.UUID.randomUUID().toString().replace("-", "");
        PostgresCrashTest.sql(postgresUrl(), "CREATE SCHEMA " + schema);
      } else {
        dir = Files.createTempDirectory("store-model");
      }
      open();
      if (!store.recordsSettledRuns()) {
        // Asked anyway, it says so (its SQL named no table: "syntax error at or near null").
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.runSettled(APP, 1))
            .isInstanceOf(UnsupportedOperationException.class)
            .hasMessageContaining("does not record settled runs");
      }
      try {
        for (Run run : runs) {
          version = store.nextVersion(APP);
          boolean wrote = false;
          // A run settles only what it precommitted itself.
          pending.clear();
          precommittedInRun.clear();
          for (List<Op> ops : run.batches()) {
            List<StateWrite> batch = batch(ops, version);
            if (batch.isEmpty()) {
              continue;
            }
            wrote = true;
            if (TRACE) {
              for (StateWrite w : batch) {
                System.out.println("run " + version + " " + describeWrite(w));
              }
              System.out.println("-- end of batch");
            }
            store.write(APP, batch).join();
            for (StateWrite w : batch) {
              applyToModel(w);
            }
            check("after a batch of run " + version);
          }
          // The shared store records no settled run (each settle is written).
          if (run.settled() && store.recordsSettledRuns()) {
            store.runSettled(APP, version);
            // A run that wrote nothing is not recorded, and its version comes again.
            if (wrote) {
              settled.add(version);
            }
            check("after run " + version + " settled");
          }
          store.runEnded(APP, version);
          if (run.reopen()) {
            close();
            open();
            check("after reopening");
          }
        }
      } finally {
        close();
        if (shared) {
          PostgresCrashTest.sql(postgresUrl(), "DROP SCHEMA " + schema + " CASCADE");
        } else {
          try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
          }
        }
      }
    }

    private void open() {
      String url = postgresUrl();
      store = shared
          ? PostgresStateStore.open(
              url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema)
          : SqliteStateStore.open(dir);
      lock = store.lockForUpdate(APP);
    }

    private void close() throws Exception {
      if (store != null) {
        lock.close();
        store.close();
        store = null;
      }
    }

    /** The writes {@code ops} stand for, keeping the engine's contract (see the class). */
    private List<StateWrite> batch(List<Op> ops, long version) {
      List<StateWrite> out = new ArrayList<>();
      List<byte[]> written = new ArrayList<>();
      List<byte[]> treesDeleted = new ArrayList<>();
      Set<ByteKey> componentsWritten = new HashSet<>();
      for (Op op : ops) {
        if (op.kind() >= 5) {
          byte[] component = COMPONENTS.get(op.path() % COMPONENTS.size());
          if (componentsWritten.add(ByteKey.of(component))) {
            out.add(componentWrite(op, component, version));
          }
          continue;
        }
        byte[] path = PATHS.get(op.path() % PATHS.size());
        if (touches(written, treesDeleted, path)) {
          continue;
        }
        TrackedState row = read(path);
        StateWrite w = switch (op.kind()) {
          case 0 -> precommittedInRun.add(ByteKey.of(path)) ? precommit(op, path, row, version)
              : null;
          case 1 -> settle(path);
          case 2 -> row == null ? null : confirm(op, row);
          case 3 -> row == null ? null : new StateWrite.DeleteState(path);
          default -> switch (op.flag() % 3) {
            case 0 -> new StateWrite.DeleteTree(path);
            case 1 -> new StateWrite.DeleteBelow(path);
            // The states of some owners only, as the sweep forgets those of the components
            // it holds on a shared store.
            default -> new StateWrite.DeleteBelow(path, List.of(owner(op.owner()),
                owner((op.owner() + 1) % OWNERS)));
          };
        };
        if (w == null) {
          continue;
        }
        if (w instanceof StateWrite.DeleteTree || w instanceof StateWrite.DeleteBelow) {
          boolean coversWritten = false;
          for (byte[] p : written) {
            coversWritten |= startsWith(p, path);
          }
          if (coversWritten) {
            continue;
          }
          treesDeleted.add(path);
        }
        written.add(path);
        out.add(w);
      }
      return out;
    }

    private static boolean touches(List<byte[]> written, List<byte[]> trees, byte[] path) {
      for (byte[] p : written) {
        if (Arrays.equals(p, path)) {
          return true;
        }
      }
      for (byte[] t : trees) {
        if (startsWith(path, t)) {
          return true;
        }
      }
      return false;
    }

    /**
     * A write of a component record: put (a memo of a fingerprint, stamped with the run on the
     * embedded store as the engine stamps one its run settles, or none), delete, or a memo
     * forgotten or invalidated.
     */
    private StateWrite componentWrite(Op op, byte[] component, long version) {
      switch (op.kind()) {
        case 5: {
          byte[] memo = null;
          if (op.flag() > 0) {
            memo = new byte[16];
            Arrays.fill(memo, (byte) (op.flag() * 7 + op.size()));
            if (op.flag() > 6 && !shared) {
              memo = io.cocoindex.runtime.state.MemoStamp.stamped(memo, version);
            }
          }
          byte[] deps = op.size() == 0 ? null : new byte[] {(byte) op.size(), (byte) version};
          byte[] values = op.flag() % 2 == 0 ? null : new byte[] {(byte) op.flag()};
          return new StateWrite.PutComponent(
              new ComponentRecord(component, memo, deps, values, op.size() * 10L), version);
        }
        case 6:
          return new StateWrite.DeleteComponent(component);
        case 7:
          return new StateWrite.ForgetMemo(component);
        default:
          return new StateWrite.InvalidateMemo(component, version);
      }
    }

    /** A component write applied to the model, as each store's SQL does. */
    private void applyComponentToModel(StateWrite w) {
      if (w instanceof StateWrite.PutComponent pc) {
        ComponentRecord r = pc.component();
        ComponentRecord old = componentRecords.get(r.path());
        byte[] memo = r.memoFingerprint();
        if (old != null && isMark(old.memoFingerprint())
            && (Arrays.compareUnsigned(old.memoFingerprint(), mark(pc.runVersion())) >= 0
                || memo == null)) {
          memo = old.memoFingerprint(); // a mark keeps out an earlier run's memo
        }
        componentRecords.put(r.path(), new ComponentRecord(r.path(), memo, r.memoDependencies(),
            r.memoValues(), r.stateCount()));
      } else if (w instanceof StateWrite.DeleteComponent dc) {
        componentRecords.remove(dc.path());
      } else if (w instanceof StateWrite.ForgetMemo fm) {
        ComponentRecord old = componentRecords.get(fm.path());
        if (old != null) {
          componentRecords.put(fm.path(), withMemo(old, shared ? mark(version) : null));
        }
      } else if (w instanceof StateWrite.InvalidateMemo im) {
        ComponentRecord old = componentRecords.get(im.path());
        byte[] mark = mark(im.runVersion() - 1);
        if (!shared) {
          if (old != null && old.memoFingerprint() != null) {
            componentRecords.put(im.path(), withMemo(old, null));
          }
        } else if (old == null) {
          componentRecords.put(im.path(), new ComponentRecord(im.path(), mark, null, null, 0));
        } else if (old.memoFingerprint() == null || !isMark(old.memoFingerprint())
            || Arrays.compareUnsigned(old.memoFingerprint(), mark) < 0) {
          componentRecords.put(im.path(), withMemo(old, mark));
        }
      }
    }

    private static ComponentRecord withMemo(ComponentRecord r, byte[] memo) {
      return new ComponentRecord(r.path(), memo, r.memoDependencies(), r.memoValues(),
          r.stateCount());
    }

    /** The mark of a memo forgotten at {@code version}: 0xFF and the version, big-endian. */
    private static byte[] mark(long version) {
      return java.nio.ByteBuffer.allocate(9).put((byte) 0xFF).putLong(version).array();
    }

    private static boolean isMark(byte[] memo) {
      return memo != null && memo.length == 9;
    }

    /**
     * A component record as read: a stamped memo reads as its fingerprint once its run is
     * settled, and as it was written before.
     */
    private ComponentRecord readComponent(ComponentRecord r) {
      byte[] memo = r.memoFingerprint();
      if (io.cocoindex.runtime.state.MemoStamp.isStamped(memo)) {
        long stamp = java.nio.ByteBuffer.wrap(memo, 16, 8).getLong();
        // Unsettled, it reads stamped: a memo check takes it up (KilledRunMemos), nothing else.
        memo = settled.contains(stamp) ? Arrays.copyOf(memo, 16) : memo;
      }
      return withMemo(r, memo);
    }

    private StateWrite precommit(Op op, byte[] path, TrackedState row, long version) {
      byte[] record = op.flag() == 0 ? null : record(op, version);
      TrackedState t = new TrackedState(path, owner(op.owner()), List.of(), op.flag() % 3,
          op.flag() % 2, op.size(), op.size() + op.flag() % 2);
      boolean fresh = row == null || op.flag() == 9;
      return new StateWrite.Precommit(t, new PossibleRecord(version, record), fresh, row);
    }

    /** A record of {@code size}: up to a few kilobytes, so that a component's chunks split. */
    private static byte[] record(Op op, long version) {
      byte[] r = new byte[new int[] {8, 60, 400, 2500}[op.size()]];
      Arrays.fill(r, (byte) (op.path() * 31 + version));
      r[0] = (byte) op.flag();
      return r;
    }

    private StateWrite settle(byte[] path) {
      StateWrite.Precommit p = pending.get(ByteKey.of(path));
      if (p == null) {
        return null;
      }
      boolean dropDescendants = p.state().path().length % 2 == 0;
      if (!shared) {
        return new StateWrite.Settle(p.state(), p.entry().version(), dropDescendants, p);
      }
      // As the engine notes them: the records read with the row, of runs that have ended (all
      // runs before this one); a lone settled record, whatever its run.
      long[] superseded = new long[0];
      TrackedState loaded = p.loaded();
      if (loaded != null) {
        superseded = loaded.records().size() == 1
            ? new long[] {loaded.records().get(0).version()}
            : loaded.records().stream().mapToLong(PossibleRecord::version)
                .filter(v -> v != 0 && v != p.entry().version()).toArray();
      }
      return new StateWrite.Settle(p.state(), p.entry().version(), dropDescendants, p,
          superseded);
    }

    private StateWrite confirm(Op op, TrackedState row) {
      TrackedState t = new TrackedState(row.path(), owner(op.owner()), row.records(),
          row.childGeneration() + op.flag() % 2, row.childEpoch(), row.parentGeneration(),
          row.parentEpoch() + op.size() % 2);
      return new StateWrite.Confirm(t, row);
    }

    private void applyToModel(StateWrite w) {
      if (w instanceof StateWrite.PutComponent || w instanceof StateWrite.DeleteComponent
          || w instanceof StateWrite.ForgetMemo || w instanceof StateWrite.InvalidateMemo) {
        applyComponentToModel(w);
        return;
      }
      byte[] path = pathOf(w);
      if (w instanceof StateWrite.DeleteBelow below) {
        Set<ByteKey> gone = new HashSet<>();
        List<byte[]> containers = new ArrayList<>();
        rows.entrySet().removeIf(e -> e.getKey().length > path.length
            && startsWith(e.getKey(), path) && below.covers(e.getValue().owner())
            && gone.add(ByteKey.of(e.getKey()))
            && (e.getValue().childGeneration() == 0 || containers.add(e.getKey())));
        // A container of those owners takes everything below it along.
        for (byte[] c : containers) {
          rows.keySet().removeIf(p -> p.length > c.length && startsWith(p, c)
              && gone.add(ByteKey.of(p)));
        }
        pending.keySet().removeIf(gone::contains);
        return;
      }
      StateWrite plain = StateWrites.resolve(w, this::read, shared);
      pending.remove(ByteKey.of(path));
      if (plain instanceof StateWrite.PutState ps) {
        rows.put(ps.state().path(), ps.state());
      } else if (plain instanceof StateWrite.DeleteState ds) {
        rows.remove(ds.path());
      } else if (plain instanceof StateWrite.DeleteTree dt) {
        rows.keySet().removeIf(p -> startsWith(p, dt.path()));
        pending.keySet().removeIf(k -> startsWith(k.bytes(), dt.path()));
      }
      if (w instanceof StateWrite.Precommit p) {
        pending.put(ByteKey.of(path), p);
      }
    }

    private static byte[] pathOf(StateWrite w) {
      if (w instanceof StateWrite.Precommit p) {
        return p.state().path();
      } else if (w instanceof StateWrite.Settle s) {
        return s.state().path();
      } else if (w instanceof StateWrite.Confirm c) {
        return c.state().path();
      } else if (w instanceof StateWrite.DeleteState d) {
        return d.path();
      } else if (w instanceof StateWrite.DeleteBelow b) {
        return b.path();
      }
      return ((StateWrite.DeleteTree) w).path();
    }

    /** The model's row of {@code path}, its records resolved as a settled run does. */
    private TrackedState read(byte[] path) {
      TrackedState t = rows.get(path);
      if (t == null || t.records().size() <= 1) {
        return t;
      }
      PossibleRecord newest = t.records().get(t.records().size() - 1);
      return settled.contains(newest.version()) ? t.withRecords(List.of(newest)) : t;
    }

    private void check(String when) {
      List<String> expectedComponents = new ArrayList<>();
      componentRecords.values().forEach(r -> expectedComponents.add(describe(readComponent(r))));
      List<String> storedComponents = new ArrayList<>();
      store.componentsInOrder(APP, r -> storedComponents.add(describe(r)));
      assertThat(storedComponents).as(when + ", component records")
          .isEqualTo(expectedComponents);
      for (byte[] c : COMPONENTS) {
        ComponentRecord r = componentRecords.get(c);
        assertThat(store.component(APP, c).map(Scenario::describe).orElse("absent"))
            .as(when + ", component " + show(c))
            .isEqualTo(r == null ? "absent" : describe(readComponent(r)));
      }
      for (byte[] path : PATHS) {
        assertSame(store.get(APP, path).orElse(null), read(path), when + ", get " + show(path));
      }
      List<TrackedState> all = store.getAll(APP, PATHS);
      assertThat(all).as(when + ", getAll").hasSize(rows.size());
      for (TrackedState t : all) {
        assertSame(t, read(t.path()), when + ", getAll " + show(t.path()));
      }
      for (int o = 0; o < OWNERS; o++) {
        byte[] owner = owner(o);
        List<TrackedState> expected = ownedInModel(owner);
        List<TrackedState> owned = new ArrayList<>(store.ownedBy(APP, owner));
        owned.sort((a, b) -> Arrays.compareUnsigned(a.path(), b.path()));
        assertThat(owned).as(when + ", ownedBy component" + o).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
          assertSame(owned.get(i), expected.get(i), when + ", ownedBy component" + o);
        }
      }
      // The read ahead: an owner's states, then those of the owners after it in path order that
      // own any (before a bound, as many as fit a few chunks), each complete.
      for (int o = 0; o < OWNERS; o++) {
        for (int maxChunks : new int[] {1, 3, 64}) {
          byte[] bound = o + 2 < OWNERS && maxChunks == 64 ? owner(o + 2) : null;
          Map<ByteKey, io.cocoindex.runtime.state.OwnedStates> ahead =
              store.ownedByFrom(APP, owner(o), bound, maxChunks);
          byte[] previous = null;
          boolean first = true;
          for (Map.Entry<ByteKey, io.cocoindex.runtime.state.OwnedStates> e : ahead.entrySet()) {
            byte[] owner = e.getKey().bytes();
            String where = when + ", read ahead from component" + o + " (" + maxChunks
                + " chunks), " + show(owner);
            if (first) {
              assertThat(owner).as(where + " comes first").isEqualTo(owner(o));
            } else {
              assertThat(Arrays.compareUnsigned(owner, previous)).as(where + " in order")
                  .isPositive();
              assertThat(bound == null || Arrays.compareUnsigned(owner, bound) < 0)
                  .as(where + " before the bound").isTrue();
            }
            List<TrackedState> expected = ownedInModel(owner);
            if (!first) {
              assertThat(expected).as(where + " owns something").isNotEmpty();
            }
            List<TrackedState> got = new ArrayList<>(e.getValue().get());
            got.sort((a, b) -> Arrays.compareUnsigned(a.path(), b.path()));
            assertThat(got).as(where).hasSameSizeAs(expected);
            for (int i = 0; i < expected.size(); i++) {
              assertSame(got.get(i), expected.get(i), where);
            }
            previous = owner;
            first = false;
          }
        }
      }
      for (byte[] prefix : List.of(new byte[0], PATHS.get(0), PATHS.get(1))) {
        List<TrackedState> scanned = new ArrayList<>();
        store.scan(APP, prefix, scanned::add);
        List<TrackedState> expected = new ArrayList<>();
        for (byte[] p : rows.keySet()) {
          if (startsWith(p, prefix)) {
            expected.add(read(p));
          }
        }
        assertThat(scanned).as(when + ", scan of " + show(prefix)).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
          assertSame(scanned.get(i), expected.get(i), when + ", scan of " + show(prefix));
        }
      }
    }

    private List<TrackedState> ownedInModel(byte[] owner) {
      List<TrackedState> out = new ArrayList<>();
      for (byte[] p : rows.keySet()) {
        if (Arrays.equals(rows.get(p).owner(), owner)) {
          out.add(read(p));
        }
      }
      return out;
    }

    private static void assertSame(TrackedState actual, TrackedState expected, String what) {
      assertThat(describe(actual)).as(what).isEqualTo(describe(expected));
    }

    private static String describe(ComponentRecord r) {
      return show(r.path()) + " memo " + Arrays.toString(r.memoFingerprint()) + " deps "
          + Arrays.toString(r.memoDependencies()) + " values " + Arrays.toString(r.memoValues())
          + " states " + r.stateCount();
    }

    private static String describe(TrackedState t) {
      if (t == null) {
        return "absent";
      }
      StringBuilder b = new StringBuilder(show(t.path())).append(" owner ").append(show(t.owner()))
          .append(" gen ").append(t.childGeneration()).append('/').append(t.childEpoch())
          .append(" parent ").append(t.parentGeneration()).append('/').append(t.parentEpoch())
          .append(" records");
      for (PossibleRecord r : t.records()) {
        b.append(' ').append(r.version()).append(':')
            .append(r.isNone() ? "none" : r.record().length + "b" + Arrays.hashCode(r.record()));
      }
      return b.toString();
    }

    private static String show(byte[] path) {
      return path.length == 0 ? "/" : TargetPath.decode(path).toString();
    }

    private static boolean startsWith(byte[] path, byte[] prefix) {
      return path.length >= prefix.length
          && Arrays.equals(path, 0, prefix.length, prefix, 0, prefix.length);
    }
  }
}
