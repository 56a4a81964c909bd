package io.cocoindex.runtime.state;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Where tracking records live between runs. One store may hold several apps, each keyed by name.
 *
 * <p>Writes are grouped: batches submitted together by concurrently finishing components are
 * committed in one durable transaction ("group commit"), and each batch is atomic.
 */
public interface StateStore extends AutoCloseable {

  /**
   * Takes the exclusive update lock of {@code app}; released by closing the returned handle.
   *
   * @param app the app's name
   * @return the lock's handle; closing it releases the lock
   * @throws StoreLockedException naming the holder (pid, host, since when) when it is held
   */
  AutoCloseable lockForUpdate(String app);

  /**
   * Takes the processing lease of one component, so that one worker at a time processes it when
   * several processes share the store. Released by closing the handle.
   *
   * @param app the app's name
   * @param componentPath the component's encoded path
   * @param wait block until the lease is free (foreground components, the root's commit)
   *     instead of giving up
   * @return the lease, or null when another worker holds it, or has processed it in this round,
   *     and {@code wait} is false. A store shared by workers records the component as processed
   *     in this round either way, so that another worker's sweep leaves it (see {@link
   *     #leaseComponents}). A store used by one process grants every lease at once.
   */
  default AutoCloseable leaseComponent(String app, byte[] componentPath, boolean wait) {
    return NO_LEASE;
  }

  /**
   * Takes the leases of several background components at once ({@code wait} false), so that a
   * store shared over the network can lease them in one round trip.
   *
   * @param app the app's name
   * @param componentPaths the components' encoded paths
   * @return one entry per path, in order: the lease, or null when another worker holds or has
   *     already claimed that component
   */
  default List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths) {
    List<AutoCloseable> leases = new ArrayList<>(componentPaths.size());
    try {
      for (byte[] path : componentPaths) {
        leases.add(leaseComponent(app, path, false));
      }
    } catch (RuntimeException e) {
      releaseTaken(leases, e);
      throw e;
    }
    return leases;
  }

  /**
   * Leases stale components for an orphan sweep, as {@link #leaseComponents}, except that a
   * component another worker claimed in this round is refused even when that worker's run
   * died: a run whose input mounted it processed it then (maybe finished it) and its record is
   * that input's, not to be swept by a run whose input is older.
   *
   * @param app the app's name
   * @param componentPaths the stale components' encoded paths
   * @return one entry per path, in order: the lease, or null when the component is refused
   */
  default List<AutoCloseable> leaseComponentsToSweep(String app, List<byte[]> componentPaths) {
    return leaseComponents(app, componentPaths);
  }

  /**
   * Background components leased together, with what was read of them once their leases were
   * held ({@link #leaseComponentsReading}). Each list has one entry per path asked for, in order.
   *
   * @param leases the leases, as {@link #leaseComponents} returns them (null: refused)
   * @param records the record of each component granted that asked for its own (empty when it
   *     has none); null for the others, and for all when the read failed
   * @param states the states owned by each component whose states were read (empty when it owns
   *     none); null for the others, and for all when the read failed
   */
  record LeaseBatch(List<AutoCloseable> leases, List<Optional<ComponentRecord>> records,
      List<List<TrackedState>> states) {}

  /**
   * Leases background components as {@link #leaseComponents} does, then reads the records of
   * those granted that ask for them ({@link #componentsAt}) and the states some of them own
   * ({@link #ownedByEach}): those of the components with the fewest states by their records
   * (ties in the order asked), as many as their records' counts add up to at most {@code
   * maxStates}. Read once the leases are held, a record is the one the component's commit would
   * read: no other worker writes a component whose lease it does not hold, but for its memo. A
   * store shared over the network reads them in the lease's round trip. A read that fails leaves
   * the leases granted and what it was to read unread: each component reads its own.
   *
   * @param app the app's name
   * @param componentPaths the components' encoded paths
   * @param readRecords for each path, whether to read its component's record (and states)
   * @param maxStates the most states to read, by the counts in the records
   * @return the leases, and the records and states read
   */
  default LeaseBatch leaseComponentsReading(String app, List<byte[]> componentPaths,
      boolean[] readRecords, long maxStates) {
    return LeaseBatchReads.byParts(this, app, componentPaths, readRecords, maxStates);
  }


  /**
   * Releases the leases taken before {@code failure}, whose caller gets no handle to them; a
   * release that fails is added to {@code failure} as suppressed.
   */
  private static void releaseTaken(List<AutoCloseable> taken, RuntimeException failure) {
    for (AutoCloseable lease : taken) {
      try {
        if (lease != null) {
          lease.close();
        }
      } catch (Exception suppressed) {
        failure.addSuppressed(suppressed);
      }
    }
  }

  /**
   * Takes the lease of one target state, waiting while another worker holds it. Taken only where
   * two workers can act on one state at once: a component taking over a state another component
   * owned, and the end-of-run sweep deleting a state its owner no longer declares. Each holds
   * it from re-reading the row until its settle, so a sweep never deletes a state that is being
   * moved, and a move never misses a deletion. Several leases are taken in encoded-path order
   * (unsigned bytes), so two holders cannot wait for each other. Released by closing the handle.
   * A store used by one process grants it at once.
   *
   * @param app the app's name
   * @param statePath the state's encoded path
   * @return the lease; closing it releases it
   */
  default AutoCloseable leaseState(String app, byte[] statePath) {
    return NO_LEASE;
  }

  /**
   * Takes the leases of several target states, given in encoded-path order, as {@link
   * #leaseState} would one by one (and with the same ordering guarantee); a store shared over the
   * network may take those that are free in one round trip.
   *
   * @param app the app's name
   * @param statePaths the states' encoded paths, in encoded-path order
   * @return one lease per path, in order
   */
  default List<AutoCloseable> leaseStates(String app, List<byte[]> statePaths) {
    List<AutoCloseable> leases = new ArrayList<>(statePaths.size());
    try {
      for (byte[] path : statePaths) {
        leases.add(leaseState(app, path));
      }
    } catch (RuntimeException e) {
      releaseTaken(leases, e);
      throw e;
    }
    return leases;
  }

  /**
   * Waits until no worker holds the lease of any of {@code componentPaths}. The end-of-run sweep
   * calls it before deciding what to delete: a component another worker is still processing may
   * be taking over a state this worker would otherwise see as an orphan. A store used by one
   * process returns at once.
   *
   * @param app the app's name
   * @param componentPaths the components' encoded paths
   */
  default void awaitComponentsReleased(String app, Collection<byte[]> componentPaths) {}

  /** The lease of a store that needs none. */
  AutoCloseable NO_LEASE = () -> {};

  /**
   * Whether the update lock makes this process the only writer of the app while it is held (an
   * embedded store), so what the engine reads at the start of a run stays true until it writes.
   * A store shared by several workers answers false.
   *
   * @return true for an embedded store; false, the default, for a shared one
   */
  default boolean exclusiveWhileLocked() {
    return false;
  }

  /**
   * What tells this store's data from every other store's, for what a process keeps per store
   * rather than per store object (the component pools of apps of one name that take turns on
   * it). Equal identities promise the same data; stores on different data have different ones.
   * A store that can name its data gives every object open on it one identity, however its
   * location was spelled (the SQLite store: its file's real path), so that an app reopened on it
   * finds what was kept. Different identities do not promise different data (one server reached
   * by two host names): what is kept per store is then kept twice.
   *
   * <p>By default the object's own: its class and identity hash code, so that no other object
   * shares what is kept for it (but for a collision of hash codes, which would let two apps of one
   * name share a component pool).
   *
   * @return the identity of the data this store is open on
   */
  default String identity() {
    return getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(this));
  }

  /**
   * Whether any target state of {@code app} is tracked; true when the store cannot tell cheaply.
   *
   * @param app the app's name
   * @return false only when the app surely tracks no target state
   */
  default boolean hasStates(String app) {
    return true;
  }

  /**
   * Whether this store records settled runs ({@link #runSettled}): then a run that completes
   * with every action applied writes no settle per state, and the store's reads return each
   * state's possible records as those settles would have left them. Only for a store with one
   * writer at a time: until a run ends, its states read as possibly applied, and a concurrent
   * worker would apply them again.
   *
   * @return true when {@link #runSettled} may be called; false by default
   */
  default boolean recordsSettledRuns() {
    return false;
  }

  /**
   * Records, durably, that run {@code version} of {@code app} applied every action it
   * precommitted and did not settle: from now on each state whose newest possible record that
   * run wrote reads as settled to it. Only called when {@link #recordsSettledRuns()}. A run that
   * wrote nothing need not be recorded (see {@link #nextVersion}).
   *
   * @param app the app's name
   * @param version the run's version, from {@link #nextVersion}
   * @throws UnsupportedOperationException from this default, for a store that records no settled
   *     run
   */
  default void runSettled(String app, long version) {
    throw new UnsupportedOperationException(getClass().getName() + " does not record settled runs");
  }

  /**
   * A version number for one run of {@code app}, greater than that of every record stored so
   * far. A store that is the app's only writer while the run holds its lock may store it with the
   * run's first write rather than at once; a run that writes nothing then leaves it to the next
   * run, which gets the same number.
   *
   * @param app the app's name
   * @return the run's version
   */
  long nextVersion(String app);

  /**
   * Throws if run {@code version} of {@code app} may look dead to the other workers of a store
   * they share while its process goes on: its sessions holding the run's lock were lost, or not
   * confirmed recently enough. The engine asks before each sink call, apply and commit of the
   * run, and stops the run when this throws: another worker may soon take over or change what it
   * writes. A store with one writer at a time never throws.
   *
   * @param app the app's name
   * @param version the run's version, from {@link #nextVersion}
   * @throws SessionsLostException if the run's sessions were lost
   */
  default void checkRunAlive(String app, long version) {}

  /**
   * Tells the store that run {@code version} of {@code app} has ended: every action it applied
   * has returned, so no write of it can land any more (see {@link #endedRuns}).
   *
   * @param app the app's name
   * @param version the run's version, from {@link #nextVersion}
   */
  default void runEnded(String app, long version) {}

  /**
   * Tells the store that run {@code version} of {@code app} was stopped early (a fatal error, or
   * a task that threw past itself): a component lease closed from now on may not have been
   * finished, and the run will end without finishing every component it leased. A store shared
   * by workers then leaves those components to the other workers still in the round rather than
   * to the next run, once the run's lock goes: at its end ({@link #runEnded}, which the engine
   * calls once the run's sink calls under way returned, or a bounded wait for them ended), or,
   * for a run that lost a task (never told ended), when the store closes. Called before anything
   * sees the run stopped: a lease closed because of the stop must not count as finished.
   *
   * @param app the app's name
   * @param version the run's version, from {@link #nextVersion}
   */
  default void runAborted(String app, long version) {}

  /**
   * Tells the store that a run of {@code app} lost a task (one threw past itself): a lease
   * that task held may never be given back. A store whose leases are locks of its own sessions
   * (PostgreSQL) then refuses the app's next runs while it still holds any lease of the app: one
   * lost would have them skip its component for good, as another worker's, until the store
   * closes.
   *
   * @param app the app's name
   */
  default void runLostATask(String app) {}

  /**
   * Of {@code versions}, runs of {@code app} whose records the engine read with the states it is
   * about to write, those that have ended: every write of theirs has landed, so the engine's own
   * write replaces them, and its settle drops their records ({@link StateWrite.Settle#superseded}).
   * A record of a run still going stays possible: two workers that read the source at different
   * moments may write one state at once, and that run's write may land after this one's. A
   * store shared by workers tells them by a lock each run holds from the moment its version is
   * allocated until {@link #runEnded} (a worker killed gives it back with its connection); a
   * store used by one process at a time: all of them, as every other run has ended.
   *
   * @param app the app's name
   * @param versions the run versions of the records read
   * @return those of {@code versions} whose runs have ended
   */
  default Set<Long> endedRuns(String app, Collection<Long> versions) {
    return Set.copyOf(versions);
  }

  /**
   * The tracking of {@code path}, if it has any.
   *
   * @param app the app's name
   * @param path the state's encoded path
   * @return its tracked state, or empty when it has none
   */
  Optional<TrackedState> get(String app, byte[] path);

  /**
   * The tracking of each path that has any, in any order.
   *
   * @param app the app's name
   * @param paths the states' encoded paths
   * @return the tracked states found; none for a path without tracking
   */
  List<TrackedState> getAll(String app, Collection<byte[]> paths);

  /**
   * Every state whose owner is {@code componentPath}, in path order where the store can (the
   * component then matches them with its declarations as a merge join; it checks the order, and
   * looks them up by path otherwise).
   *
   * @param app the app's name
   * @param componentPath the component's encoded path
   * @return the states it owns; empty when it owns none
   */
  List<TrackedState> ownedBy(String app, byte[] componentPath);

  /**
   * The states each of {@code componentPaths} owns, as {@link #ownedBy} reads them, read
   * together: a store across the network reads them in a round trip or a few (an orphan sweep's
   * stale components, say, which it otherwise read one round trip each).
   *
   * @param app the app's name
   * @param componentPaths the components' encoded paths
   * @return one list per path, in order: the states it owns, empty when it owns none
   */
  default List<List<TrackedState>> ownedByEach(String app, List<byte[]> componentPaths) {
    List<List<TrackedState>> out = new ArrayList<>(componentPaths.size());
    for (byte[] path : componentPaths) {
      out.add(ownedBy(app, path));
    }
    return out;
  }

  /**
   * The states of {@code componentPath} and of the components after it in path order that own
   * any, each complete, read at once: a read ahead for components that ask in path order (see
   * {@code StateReadAhead}). The map iterates in path order, {@code componentPath} first (with
   * an empty list when it owns nothing); the components after it come before {@code before}
   * (encoded; null for no bound) and are as many as the store reads cheaply in one go (about
   * {@code maxChunks} of its storage units), possibly none. Each component's states may be
   * decoded only when asked for ({@link OwnedStates#get}).
   *
   * @param app the app's name
   * @param componentPath the encoded path of the component asking
   * @param before the encoded path the read stops before, or null for no bound
   * @param maxChunks about how many storage units to read
   * @return the states of each component read, by encoded component path, in path order
   */
  default Map<ByteKey, OwnedStates> ownedByFrom(String app, byte[] componentPath,
      byte[] before, int maxChunks) {
    Map<ByteKey, OwnedStates> out = new LinkedHashMap<>();
    out.put(ByteKey.of(componentPath), OwnedStates.of(ownedBy(app, componentPath)));
    return out;
  }

  /** Takes one component's states (see {@link #ownedInSubtree}). */
  interface OwnerVisitor {
    /**
     * Takes the states of one component.
     *
     * @param owner the component's encoded path
     * @param states its tracked states, in path order
     */
    void visit(byte[] owner, List<TrackedState> states);
  }

  /**
   * The states of {@code componentPath} and of every component below it, to {@code visitor}
   * owner by owner in path order (owners without states may be left out). A store with range
   * reads reads the subtree a window of owners at a time, so that it costs a few queries
   * whatever its size and holds one window (an owner with more states than that, alone); by
   * default, a read per component of the subtree that has a record.
   *
   * @param app the app's name
   * @param componentPath the encoded path of the subtree's top component
   * @param visitor given each owner's states, as they are read
   */
  default void ownedInSubtree(String app, byte[] componentPath, OwnerVisitor visitor) {
    visitor.visit(componentPath, ownedBy(app, componentPath));
    for (byte[] below : componentPathsBelow(app, componentPath)) {
      visitor.visit(below, ownedBy(app, below));
    }
  }

  /**
   * Every state at or below {@code path}, in path order; an empty path scans the whole app.
   *
   * @param app the app's name
   * @param path the encoded path to scan below, or an empty array for the whole app
   * @param visitor given each tracked state, as it is read
   */
  void scan(String app, byte[] path, Consumer<TrackedState> visitor);

  /**
   * The record of the component at {@code path} (its memo, its children), if any.
   *
   * @param app the app's name
   * @param path the component's encoded path
   * @return its record, or empty when it has none
   */
  Optional<ComponentRecord> component(String app, byte[] path);

  /**
   * The records of the components at {@code paths}, as {@link #component} reads each; a store
   * across the network reads them in one round trip (the components of a lease batch, say).
   *
   * @param app the app's name
   * @param paths the components' encoded paths
   * @return one entry per path, in order: its record, or empty when it has none
   */
  default List<Optional<ComponentRecord>> componentsAt(String app, List<byte[]> paths) {
    List<Optional<ComponentRecord>> out = new ArrayList<>(paths.size());
    for (byte[] path : paths) {
      out.add(component(app, path));
    }
    return out;
  }

  /**
   * Every component record of the app.
   *
   * @param app the app's name
   * @return the records, in any order
   */
  List<ComponentRecord> components(String app);

  /**
   * Every component record of the app, to {@code visitor} in path order as they are read, so that
   * a caller may use the first while the rest are read (a run's {@code ComponentScan}).
   *
   * @param app the app's name
   * @param visitor given each component record, in path order
   */
  default void componentsInOrder(String app, Consumer<ComponentRecord> visitor) {
    List<ComponentRecord> all = new ArrayList<>(components(app));
    all.sort((a, b) -> Arrays.compareUnsigned(a.path(), b.path()));
    all.forEach(visitor);
  }

  /**
   * The paths of the app's component records strictly below {@code path} (its descendants), in
   * path order: a memoized component asks, when it commits, whether components it no longer
   * mounts are still tracked.
   *
   * @param app the app's name
   * @param path the component's encoded path
   * @return the encoded paths of its descendants with a record, in path order
   */
  default List<byte[]> componentPathsBelow(String app, byte[] path) {
    List<byte[]> out = new ArrayList<>();
    for (ComponentRecord c : components(app)) {
      byte[] p = c.path();
      if (p.length > path.length && Arrays.equals(p, 0, path.length, path, 0, path.length)) {
        out.add(p);
      }
    }
    out.sort(Arrays::compareUnsigned);
    return out;
  }

  /**
   * Applies a batch atomically and durably; completes when committed.
   *
   * @param app the app's name
   * @param writes the batch: writes of states (precommits, settles, deletions) and of components
   * @return a future completed once the batch is durable, or exceptionally when it failed
   */
  CompletableFuture<Void> write(String app, List<StateWrite> writes);

  /**
   * Forgets everything stored for {@code app}.
   *
   * @param app the app's name
   */
  void clear(String app);

  /**
   * The names of the apps with any stored state.
   *
   * @return the app names, in any order
   */
  List<String> apps();

  @Override
  void close();
}
