package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.ManagedBlocking;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.TrackedState;
import io.cocoindex.runtime.threads.DrainingQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Leases background components in batches: the requests made while one batch is being leased go
 * out together in the next {@link StateStore#leaseComponentsReading} call, so a store shared over
 * the network pays one round trip for many components instead of one (or two) each, and no thread
 * blocks per component waiting for its lease.
 *
 * <p>The records of the components granted are read with the batch too, once their leases are
 * held, for those that ask: each would otherwise read its own as it commits, and the reads grouped
 * only those its pool's threads made at once, a few components a round trip. Read once the locks
 * are held, a record is the one the component's commit would read: no other worker writes a
 * component whose lease it does not hold, and the writes that reach a component's record without
 * its lease are its memo's, which a component asking here does not have.
 *
 * <p>So are the states those components own, for their commits ({@link #takeStates}): read one at
 * a time as each committed, they took about a round trip for every four components of a warm run.
 * A component's own states change only with its own commit, which needs its lease. Another
 * component's commit may change them meanwhile (take a state over, or drop it with a container it
 * deleted), as it may between a read at the commit and the commit's writes, which the engine meets
 * already: a precommit reads and locks the rows it writes, and a state the component no longer
 * declares goes to the orphan sweep, which on a shared store reads it again under its lease and
 * leaves it to a new owner. The PostgreSQL store takes the leases and reads both in one round trip.
 */
public final class LeaseBatcher {
  /** Bounds one round trip's statement; a larger backlog is leased in several. */
  private static final int MAX_BATCH = 256;
  /**
   * How many states a batch reads for its components at most, by the counts in their records
   * (what each declared last; those with the fewest first): they are held while the bodies run,
   * and those of a component past it are read at its commit.
   */
  static final int STATES_READ_PER_BATCH = 4_096;

  private final StateStore store;
  private final String app;
  private final DrainingQueue<Request> requests;
  /**
   * The states owned by leased components whose records a batch read, until each takes its own
   * or gives its lease back.
   */
  private final Map<ByteKey, List<TrackedState>> statesRead = new ConcurrentHashMap<>();

  private record Request(byte[] path, boolean readRecord, CompletableFuture<Leased> leased) {}

  /**
   * A component's lease as a batch granted it, with its record if it was asked for and read.
   *
   * @param lease the lease, or null when another worker holds or has claimed the component
   * @param recordRead whether {@code record} was read (it was asked for, and the read succeeded)
   * @param record the component's record, or null when it has none or it was not read
   */
  public record Leased(AutoCloseable lease, boolean recordRead, ComponentRecord record) {}

  /**
   * Leases the components of {@code app}, a batch of requests per store call.
   *
   * @param store the store shared by workers that grants the leases
   * @param app the app's name
   * @param executor runs the store calls, off the requesting threads
   */
  public LeaseBatcher(StateStore store, String app, Executor executor) {
    this.store = store;
    this.app = app;
    this.requests = new DrainingQueue<>(executor, MAX_BATCH, this::leaseBatch,
        (r, e) -> r.leased.completeExceptionally(e));
  }

  /**
   * Requests the lease of a background component.
   *
   * @param componentPath the component's encoded path
   * @param readRecord whether to read the component's record once it is leased
   * @return completes with the lease (null in it when another worker holds or has claimed the
   *     component); exceptionally when the store cannot lease
   */
  public CompletableFuture<Leased> lease(byte[] componentPath, boolean readRecord) {
    Request r = new Request(componentPath, readRecord, new CompletableFuture<>());
    requests.add(r);
    return r.leased;
  }

  private void leaseBatch(List<Request> batch) {
    List<byte[]> paths = new ArrayList<>(batch.size());
    boolean[] readRecords = new boolean[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      paths.add(batch.get(i).path);
      readRecords[i] = batch.get(i).readRecord;
    }
    StateStore.LeaseBatch leased;
    try {
      leased = ManagedBlocking.run(() -> store.leaseComponentsReading(app, paths, readRecords,
          STATES_READ_PER_BATCH), "leasing components");
    } catch (RuntimeException | Error e) {
      batch.forEach(r -> r.leased.completeExceptionally(e));
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      Request r = batch.get(i);
      AutoCloseable lease = leased.leases().get(i);
      Optional<ComponentRecord> record = leased.records().get(i);
      if (lease != null && record != null && r.readRecord) {
        List<TrackedState> states = leased.states().get(i);
        if (states != null) {
          statesRead.put(ByteKey.of(r.path), states); // before its body may start
        }
        r.leased.complete(new Leased(forgettingStates(r.path, lease), true, record.orElse(null)));
      } else {
        r.leased.complete(new Leased(lease, false, null));
      }
    }
  }

  /**
   * The states {@code component} owned as its lease was taken, if they were read then; each
   * component's are taken once.
   *
   * @param component the component's path
   * @return the states it owns (empty when none), or null when they were not read with its lease
   */
  public List<TrackedState> takeStates(TargetPath component) {
    return statesRead.remove(component.key());
  }

  /** {@code lease}, whose closing also lets go of the states kept for its component. */
  private AutoCloseable forgettingStates(byte[] component, AutoCloseable lease) {
    ByteKey key = ByteKey.of(component);
    return () -> {
      statesRead.remove(key);
      lease.close();
    };
  }
}
