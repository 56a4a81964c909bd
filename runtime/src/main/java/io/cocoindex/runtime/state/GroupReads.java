package io.cocoindex.runtime.state;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Group reads: keyed point reads that engine threads make meanwhile go to the database as one
 * query (the read-side counterpart of {@link GroupCommitter}). The first caller with nothing in
 * flight leads: it runs one query for every pending key, again until none is pending; the others
 * wait for their result. On a store across the network this turns a round trip per component
 * into one per group.
 *
 * @param <V> what one key reads; a missing key reads the {@code absent} value given
 */
final class GroupReads<V> {
  /** Reads the values of {@code keys} of {@code app} in one query; a missing key may be left out. */
  interface Query<V> {
    Map<ByteKey, V> run(String app, List<byte[]> keys) throws SQLException;
  }

  /** Bounds one query's parameter array. */
  private static final int MAX_BATCH = 500;

  private final Query<V> query;
  private final V absent;
  private final List<Request<V>> pending = new ArrayList<>();
  private boolean leading;

  private record Request<V>(String app, byte[] key, CompletableFuture<V> result) {}

  GroupReads(Query<V> query, V absent) {
    this.query = query;
    this.absent = absent;
  }

  /** Reads one key. */
  V get(String app, byte[] key) throws SQLException {
    return getAll(app, List.of(key)).get(0);
  }

  /** Reads several keys, in order. */
  List<V> getAll(String app, List<byte[]> keys) throws SQLException {
    List<CompletableFuture<V>> results = new ArrayList<>(keys.size());
    boolean lead;
    synchronized (this) {
      for (byte[] k : keys) {
        Request<V> r = new Request<>(app, k, new CompletableFuture<>());
        pending.add(r);
        results.add(r.result);
      }
      lead = !leading;
      leading = true;
    }
    if (lead) {
      drain();
    }
    List<V> out = new ArrayList<>(keys.size());
    for (CompletableFuture<V> f : results) {
      out.add(await(f));
    }
    return out;
  }

  private void drain() {
    while (true) {
      List<Request<V>> batch;
      synchronized (this) {
        if (pending.isEmpty()) {
          leading = false;
          return;
        }
        int n = Math.min(pending.size(), MAX_BATCH);
        batch = new ArrayList<>(pending.subList(0, n));
        pending.subList(0, n).clear();
      }
      Map<String, List<Request<V>>> byApp = new LinkedHashMap<>();
      for (Request<V> r : batch) {
        byApp.computeIfAbsent(r.app, a -> new ArrayList<>()).add(r);
      }
      byApp.forEach(this::read);
    }
  }

  private void read(String app, List<Request<V>> requests) {
    List<byte[]> keys = new ArrayList<>(requests.size());
    requests.forEach(r -> keys.add(r.key));
    try {
      Map<ByteKey, V> found = query.run(app, keys);
      for (Request<V> r : requests) {
        r.result.complete(found.getOrDefault(ByteKey.of(r.key), absent));
      }
    } catch (SQLException | RuntimeException | Error e) {
      requests.forEach(r -> r.result.completeExceptionally(e));
    }
  }

  /**
   * Waits for a leader's result; on the engine's fork-join pool as a managed block while the pool
   * may add a spare thread ({@link ManagedBlocking#spareThreads}).
   */
  private static <V> V await(CompletableFuture<V> f) throws SQLException {
    try {
      // The leader reads on its own thread, so a plain wait (past the spares) is safe.
      ManagedBlocking.awaitDone(f);
      return f.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateStoreException("interrupted while reading the state store");
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof SQLException s) {
        throw s;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }
}
