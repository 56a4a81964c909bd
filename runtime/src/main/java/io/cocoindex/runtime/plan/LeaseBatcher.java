package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.ManagedBlocking;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.threads.DrainingQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases background components in batches: the requests made while one batch is being leased go
 * out together in the next {@link StateStore#leaseComponents} call, so a store shared over the
 * network pays one round trip for many components instead of one (or two) each, and no thread
 * blocks per component waiting for its lease.
 *
 * <p>The records of the components granted are read together too, right after the batch, for
 * those that ask ({@link StateStore#componentsAt}): each would otherwise read its own as it
 * commits, and the reads grouped only those its pool's threads made at once, a few components a
 * round trip. Read once the locks are held, a record is the one the component's commit would
 * read: no other worker writes a component whose lease it does not hold, and the writes that
 * reach a component's record without its lease are its memo's, which a component asking here
 * does not have.
 */
public final class LeaseBatcher {
  private static final Logger log = LoggerFactory.getLogger(LeaseBatcher.class);

  /** Bounds one round trip's statement; a larger backlog is leased in several. */
  private static final int MAX_BATCH = 256;

  private final StateStore store;
  private final String app;
  private final DrainingQueue<Request> requests;

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
    batch.forEach(r -> paths.add(r.path));
    List<AutoCloseable> leases;
    try {
      leases = ManagedBlocking.run(() -> store.leaseComponents(app, paths), "leasing components");
    } catch (RuntimeException | Error e) {
      batch.forEach(r -> r.leased.completeExceptionally(e));
      return;
    }
    List<Optional<ComponentRecord>> records = readRecords(batch, leases);
    for (int i = 0, read = 0; i < batch.size(); i++) {
      Request r = batch.get(i);
      AutoCloseable lease = leases.get(i);
      if (records != null && lease != null && r.readRecord) {
        r.leased.complete(new Leased(lease, true, records.get(read++).orElse(null)));
      } else {
        r.leased.complete(new Leased(lease, false, null));
      }
    }
  }

  /**
   * The records of the components granted that asked for theirs, in batch order; null when there
   * are none or the read failed (each component then reads its own, and fails on it if the store
   * still cannot read: not here, for a read it might not need).
   */
  private List<Optional<ComponentRecord>> readRecords(
      List<Request> batch, List<AutoCloseable> leases) {
    List<byte[]> wanted = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      if (leases.get(i) != null && batch.get(i).readRecord) {
        wanted.add(batch.get(i).path);
      }
    }
    if (wanted.isEmpty()) {
      return null;
    }
    try {
      return ManagedBlocking.run(() -> store.componentsAt(app, wanted), "reading components");
    } catch (RuntimeException e) {
      log.debug("reading the records of {} leased components failed; each reads its own",
          wanted.size(), e);
      return null;
    }
  }
}
