package io.cocoindex.samples.postgres;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * A DataSource that records every statement the connector executes (and every connection it
 * opens), so a test can assert that a no-op run sends nothing but its look-ups of the tables it
 * would not otherwise touch (dropped by hand? changed by their own app?), which are counted apart
 * ({@link #takeLookUps}).
 */
final class CountingDataSource {
  private final DataSource target;
  private final List<String> executed = Collections.synchronizedList(new ArrayList<>());
  private volatile int connections;
  private volatile int lookUps;
  /** A statement this matches fails before it runs; null for none. */
  private volatile Predicate<String> failBefore;
  /** A transaction that ran a statement this matches commits, then its commit fails; null for none. */
  private volatile Predicate<String> failAfterCommit;

  CountingDataSource(DataSource target) {
    this.target = target;
  }

  DataSource dataSource() {
    return proxy(DataSource.class, target, null, null);
  }

  /** The SQL executed since the last call, in order, and forgets it. */
  List<String> take() {
    synchronized (executed) {
      List<String> out = List.copyOf(executed);
      executed.clear();
      return out;
    }
  }

  /**
   * Fault injection: a statement {@code p} matches fails before it runs (its transaction is
   * rolled back by the connector), as a process killed there; null stops it.
   */
  void failBefore(Predicate<String> p) {
    failBefore = p;
  }

  /**
   * Fault injection: a connection that ran a statement {@code p} matches commits, then its
   * {@code commit()} throws, as when the process is killed before the engine learns of the
   * commit; null stops it.
   */
  void failAfterCommit(Predicate<String> p) {
    failAfterCommit = p;
  }

  /** Connections opened since the last call, and resets the count. */
  /**
   * How many tables were looked up since the last call ({@link Relations#TABLE_THERE_SQL}, and
   * {@link TableGuests#LOOK_SQL} for a user's table).
   */
  int takeLookUps() {
    int n = lookUps;
    lookUps = 0;
    return n;
  }

  int takeConnections() {
    int n = connections;
    connections = 0;
    return n;
  }

  @SuppressWarnings("unchecked")
  private <T> T proxy(Class<T> type, Object delegate, String preparedSql, AtomicBoolean failCommit) {
    InvocationHandler h = (p, method, args) -> {
      String name = method.getName();
      String sql = null;
      if (name.startsWith("execute") && args != null && args.length > 0
          && args[0] instanceof String s) {
        sql = s;
      } else if (name.startsWith("execute") && preparedSql != null) {
        sql = preparedSql;
      }
      if (sql != null && (sql.equals(Relations.TABLE_THERE_SQL)
          || sql.equals(TableGuests.LOOK_SQL))) {
        lookUps++;
      } else if (sql != null) {
        executed.add(sql);
        Predicate<String> before = failBefore;
        if (before != null && before.test(sql)) {
          throw new SQLException("injected failure before [" + sql + "]");
        }
        Predicate<String> after = failAfterCommit;
        if (after != null && after.test(sql)) {
          failCommit.set(true);
        }
      }
      Object result;
      try {
        result = method.invoke(delegate, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      if (name.equals("commit") && failCommit != null && failCommit.getAndSet(false)) {
        throw new SQLException("injected failure after the commit");
      }
      if (result instanceof Connection c) {
        connections++;
        return proxy(Connection.class, c, null, new AtomicBoolean());
      }
      if (result instanceof PreparedStatement ps) {
        return proxy(PreparedStatement.class, ps, (String) args[0], failCommit);
      }
      if (result instanceof Statement st) {
        return proxy(Statement.class, st, null, failCommit);
      }
      return result;
    };
    return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h);
  }
}
