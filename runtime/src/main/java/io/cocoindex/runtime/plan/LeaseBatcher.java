package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ManagedBlocking;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.threads.DrainingQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Leases background components in batches: the requests made while one batch is being leased go
 * out together in the next {@link StateStore#leaseComponents} call, so a store shared over the
 * network pays one round trip for many components instead of one (or two) each, and no thread
 * blocks per component waiting for its lease.
 */
public final class LeaseBatcher {
  /** Bounds one round trip's statement; a larger backlog is leased in several. */
  private static final int MAX_BATCH = 256;

  private final StateStore store;
  private final String app;
  private final DrainingQueue<Request> requests;

  private record Request(byte[] path, CompletableFuture<AutoCloseable> lease) {}

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
        (r, e) -> r.lease.completeExceptionally(e));
  }

  /**
   * Requests the lease of a background component.
   *
   * @param componentPath the component's encoded path
   * @return completes with the lease, or with null when another worker holds or has claimed the
   *     component; exceptionally when the store cannot lease
   */
  public CompletableFuture<AutoCloseable> lease(byte[] componentPath) {
    Request r = new Request(componentPath, new CompletableFuture<>());
    requests.add(r);
    return r.lease;
  }

  private void leaseBatch(List<Request> batch) {
    List<byte[]> paths = new ArrayList<>(batch.size());
    batch.forEach(r -> paths.add(r.path));
    List<AutoCloseable> leases;
    try {
      leases = ManagedBlocking.run(() -> store.leaseComponents(app, paths), "leasing components");
    } catch (RuntimeException | Error e) {
      batch.forEach(r -> r.lease.completeExceptionally(e));
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      batch.get(i).lease.complete(leases.get(i));
    }
  }
}
