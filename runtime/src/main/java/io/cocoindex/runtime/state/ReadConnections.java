package io.cocoindex.runtime.state;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A few read connections of a JDBC store, opened on demand and shared by the engine threads. */
final class ReadConnections implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReadConnections.class);

  /** Work on one connection. */
  interface Read<T> {
    T run(Connection c) throws SQLException;
  }

  private final Supplier<Connection> connect;
  private final int size;
  private final BlockingQueue<Connection> idle;
  private final List<Connection> all = new ArrayList<>();

  private final boolean managedBlocking;

  /**
   * @param managedBlocking wait for a read as a fork-join managed block (a store reached over
   *     the network), rather than plainly (an embedded store, whose reads are short)
   */
  ReadConnections(Supplier<Connection> connect, int size, boolean managedBlocking) {
    this.connect = connect;
    this.size = size;
    this.managedBlocking = managedBlocking;
    this.idle = new ArrayBlockingQueue<>(size);
  }

  /**
   * Runs {@code op} on an idle connection. The engine calls this from its fork-join pool: on a
   * store read over the network (built with {@code managedBlocking}) the wait is a managed block,
   * so the pool adds a thread meanwhile (up to its bound of spares) and a few slow round trips do
   * not stall every component; an embedded store's read, short and local, waits plainly.
   */
  <T> T read(Read<T> op) throws SQLException {
    if (!managedBlocking || !(Thread.currentThread() instanceof ForkJoinWorkerThread)) {
      return readNow(op);
    }
    return ManagedBlocking.run(() -> readNow(op), "reading the state store");
  }

  private <T> T readNow(Read<T> op) throws SQLException {
    Connection c = idle.poll();
    if (c == null) {
      synchronized (all) {
        if (all.size() < size) {
          c = connect.get();
          all.add(c);
        }
      }
      if (c == null) {
        try {
          c = idle.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StateStoreException("interrupted while waiting for a state store connection");
        }
      }
    }
    try {
      return op.run(c);
    } finally {
      idle.offer(c);
    }
  }

  @Override
  public void close() {
    synchronized (all) {
      for (Connection c : all) {
        try {
          c.close();
        } catch (SQLException e) {
          log.debug("closing a state store connection failed", e);
        }
      }
      all.clear();
    }
  }
}
