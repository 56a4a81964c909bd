package io.cocoindex.runtime.state;

import io.cocoindex.runtime.threads.SharedThreads;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: one writer thread takes every write batch submitted meanwhile and commits them in
 * one transaction (a durable commit costs a sync, whatever its size). If that transaction fails,
 * each batch is retried in a transaction of its own, so one bad batch fails alone.
 *
 * <p>The writer starts with the first batch: a rerun in which nothing changed writes nothing,
 * and starting a thread it never used cost it 0.3-0.8 ms on a two-core machine. It runs on a
 * {@link SharedThreads} thread, named for the store while it writes: a store opened for each
 * update then finds one ready rather than waiting for a new thread on its first write.
 */
final class GroupCommitter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GroupCommitter.class);

  /** One submitted batch. */
  record Batch(String app, List<StateWrite> writes, CompletableFuture<Void> done) {}

  /** Applies batches in one transaction. */
  interface Transaction {
    void commit(List<Batch> group) throws SQLException;
  }

  private static final Batch STOP = new Batch(null, List.of(), null);

  private final LinkedBlockingQueue<Batch> queue = new LinkedBlockingQueue<>();
  private final Transaction transaction;
  private final Function<SQLException, RuntimeException> failure;
  private final String writerName;
  /** Completes once the writer has stopped; set when it starts, under this object's lock. */
  private volatile CompletableFuture<Void> writerEnded;
  private volatile boolean closed;
  /** Whether the writer was started; set under this object's lock. */
  private volatile boolean started;

  GroupCommitter(String threadName, Transaction transaction,
      Function<SQLException, RuntimeException> failure) {
    this.transaction = transaction;
    this.failure = failure;
    this.writerName = threadName;
  }

  CompletableFuture<Void> submit(String app, List<StateWrite> writes) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (closed) {
      done.completeExceptionally(new StateStoreException("the state store is closed"));
    } else if (writes.isEmpty()) {
      done.complete(null);
    } else {
      Batch batch = new Batch(app, List.copyOf(writes), done);
      queue.add(batch);
      startWriter();
      // A close that began meanwhile may have stopped the writer before it took the batch:
      // still queued, it is this caller's to fail (taken, the writer completes it).
      if (closed && queue.remove(batch)) {
        done.completeExceptionally(new StateStoreException("the state store is closed"));
      }
    }
    return done;
  }

  /** Starts the writer for a batch just queued, or fails the batch if closed without one. */
  private void startWriter() {
    if (started) {
      return;
    }
    synchronized (this) {
      if (started) {
        return;
      }
      if (closed) {
        failClosedBeforeStart(); // nothing would ever take the batch
        return;
      }
      started = true;
      try {
        writerEnded = SharedThreads.execute(writerName, this::loop);
      } catch (RuntimeException | Error e) {
        // No thread to be had (out of native threads, say): fail what waits and what follows.
        closed = true;
        failPending(e);
      }
    }
  }

  private void loop() {
    List<Batch> group = new ArrayList<>();
    while (true) {
      try {
        group.clear();
        group.add(queue.take());
        queue.drainTo(group);
      } catch (InterruptedException e) {
        // It stops: closed first, so that no later write is queued where no writer takes it.
        closed = true;
        failPending(new StateStoreException("the state store writer was interrupted"));
        return;
      }
      boolean stop = group.remove(STOP);
      try {
        if (!group.isEmpty()) {
          commit(group);
        }
      } catch (Throwable fatal) {
        // Out of memory, say: fail what waits rather than leave the run waiting forever. Every
        // write it held is failed, so nothing is lost: it ends quietly rather than throw past
        // its task, which tells every run of the process that work was lost (SharedThreads).
        group.forEach(b -> b.done.completeExceptionally(fatal));
        closed = true;
        failPending(fatal);
        try {
          log.error("the state store's writer stopped; the store takes no more writes", fatal);
        } catch (Throwable ignored) {
          // out of memory: the writes it held carry the error
        }
        return;
      }
      if (stop) {
        return;
      }
    }
  }

  /** Fails a batch that raced a close which found no writer (usually there is none). */
  private void failClosedBeforeStart() {
    if (!queue.isEmpty()) {
      failPending(new StateStoreException("the state store is closed"));
    }
  }

  private void failPending(Throwable cause) {
    List<Batch> rest = new ArrayList<>();
    queue.drainTo(rest);
    for (Batch b : rest) {
      if (b.done != null) {
        b.done.completeExceptionally(cause);
      }
    }
  }

  private void commit(List<Batch> group) {
    try {
      transaction.commit(group);
      group.forEach(b -> b.done.complete(null));
      return;
    } catch (SQLException | RuntimeException e) {
      if (group.size() == 1) {
        group.get(0).done.completeExceptionally(wrap(e));
        return;
      }
      log.debug("group commit of {} batches failed; committing them one by one", group.size(), e);
    }
    for (Batch b : group) {
      try {
        transaction.commit(List.of(b));
        b.done.complete(null);
      } catch (SQLException | RuntimeException e) {
        b.done.completeExceptionally(wrap(e));
      }
    }
  }

  private RuntimeException wrap(Exception e) {
    return e instanceof SQLException s ? failure.apply(s) : (RuntimeException) e;
  }

  /** Commits what was submitted, then stops the writer. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    synchronized (this) {
      if (!started) {
        failClosedBeforeStart(); // nothing was written: no writer to stop
        return;
      }
    }
    queue.add(STOP);
    try {
      writerEnded.get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // The writer failed what it held (its thread reported why) or is stuck in a commit: the
      // store closes its connection either way.
    }
    // What was queued after the writer's last take (a submit racing the close) waits no more.
    failPending(new StateStoreException("the state store is closed"));
  }
}
