package io.cocoindex.runtime;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * A connection that notes each round trip its statements make: each {@code execute},
 * {@code executeQuery}, {@code executeUpdate} and {@code executeBatch} (a batch of one statement
 * goes to the server as one round trip, whatever its size), and each commit (by {@code commit} or
 * {@code setAutoCommit(true)} in a transaction), with the
 * statement's SQL, how many statements the server executed in it (a batch's size) and whether the
 * connection was in a transaction of its own ({@code autoCommit} off). Several connections may
 * note into one list ({@link #dataSource}).
 */
public final class CountingConnection {
  /**
   * One round trip: its SQL, the statements executed in it (1, or a batch's size), and whether it
   * was in an explicit transaction.
   */
  public record RoundTrip(int connection, String sql, int statements, boolean inTransaction) {}

  private static final Set<String> EXECUTIONS =
      Set.of("execute", "executeQuery", "executeUpdate", "executeBatch", "executeLargeUpdate",
          "executeLargeBatch");

  private final List<RoundTrip> roundTrips;
  private final int id;
  private final Connection delegate;
  private final Connection connection;

  /** Notes into a list of its own. */
  public CountingConnection(Connection delegate) {
    this(delegate, Collections.synchronizedList(new ArrayList<>()), 0);
  }

  private CountingConnection(Connection delegate, List<RoundTrip> roundTrips, int id) {
    this.delegate = delegate;
    this.roundTrips = roundTrips;
    this.id = id;
    this.connection = (Connection) Proxy.newProxyInstance(
        CountingConnection.class.getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          if (method.getName().equals("commit")
              || (method.getName().equals("setAutoCommit") && Boolean.TRUE.equals(args[0])
              && !delegate.getAutoCommit())) {
            note("COMMIT", 1); // setAutoCommit(true) commits a transaction going on
          }
          Object result = invoke(delegate, method, args);
          if (result instanceof Statement s) {
            boolean prepared = method.getName().startsWith("prepare");
            return counting(s, prepared && args != null && args.length > 0
                ? String.valueOf(args[0]) : null);
          }
          return result;
        });
  }

  /**
   * A data source whose connections, from {@code delegate}, note into {@code roundTrips}, each
   * connection with a number of its own.
   */
  public static DataSource dataSource(DataSource delegate, List<RoundTrip> roundTrips) {
    int[] next = new int[1];
    return (DataSource) Proxy.newProxyInstance(CountingConnection.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
          Object result = invoke(delegate, method, args);
          if (result instanceof Connection c) {
            int id;
            synchronized (next) {
              id = ++next[0];
            }
            return new CountingConnection(c, roundTrips, id).connection();
          }
          return result;
        });
  }

  /** The connection to hand the code under test. */
  public Connection connection() {
    return connection;
  }

  /** The round trips so far, and forgets them. */
  public List<RoundTrip> take() {
    synchronized (roundTrips) {
      List<RoundTrip> out = new ArrayList<>(roundTrips);
      roundTrips.clear();
      return out;
    }
  }

  private void note(String sql, int statements) {
    boolean inTransaction;
    try {
      inTransaction = !delegate.getAutoCommit();
    } catch (Exception e) {
      inTransaction = false;
    }
    roundTrips.add(new RoundTrip(id, sql, statements, inTransaction));
  }

  private Statement counting(Statement s, String preparedSql) {
    List<Class<?>> interfaces = new ArrayList<>();
    for (Class<?> c = s.getClass(); c != null; c = c.getSuperclass()) {
      for (Class<?> i : c.getInterfaces()) {
        if (Statement.class.isAssignableFrom(i)) {
          interfaces.add(i);
        }
      }
    }
    int[] batched = new int[1];
    return (Statement) Proxy.newProxyInstance(CountingConnection.class.getClassLoader(),
        interfaces.toArray(new Class<?>[0]), (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("addBatch")) {
            batched[0]++;
          } else if (name.equals("clearBatch")) {
            batched[0] = 0;
          } else if (EXECUTIONS.contains(name)) {
            boolean batch = name.endsWith("Batch");
            note(preparedSql != null ? preparedSql
                : args != null && args.length > 0 ? String.valueOf(args[0]) : "?",
                batch ? batched[0] : 1);
            if (batch) {
              batched[0] = 0;
            }
          }
          if (method.getName().equals("getConnection")) {
            return connection;
          }
          return invoke(s, method, args);
        });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
