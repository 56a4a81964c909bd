package io.cocoindex.samples.postgres;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.sql.DataSource;

/**
 * A DataSource that records every statement the connector executes (and every connection it
 * opens), so a test can assert that a no-op run sends nothing.
 */
final class CountingDataSource {
  private final DataSource target;
  private final List<String> executed = Collections.synchronizedList(new ArrayList<>());
  private volatile int connections;

  CountingDataSource(DataSource target) {
    this.target = target;
  }

  DataSource dataSource() {
    return proxy(DataSource.class, target, null);
  }

  /** The SQL executed since the last call, in order, and forgets it. */
  List<String> take() {
    synchronized (executed) {
      List<String> out = List.copyOf(executed);
      executed.clear();
      return out;
    }
  }

  /** Connections opened since the last call, and resets the count. */
  int takeConnections() {
    int n = connections;
    connections = 0;
    return n;
  }

  @SuppressWarnings("unchecked")
  private <T> T proxy(Class<T> type, Object delegate, String preparedSql) {
    InvocationHandler h = (p, method, args) -> {
      String name = method.getName();
      if (name.startsWith("execute") && args != null && args.length > 0
          && args[0] instanceof String sql) {
        executed.add(sql);
      } else if (name.startsWith("execute") && preparedSql != null) {
        executed.add(preparedSql);
      }
      Object result;
      try {
        result = method.invoke(delegate, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      if (result instanceof Connection c) {
        connections++;
        return proxy(Connection.class, c, null);
      }
      if (result instanceof PreparedStatement ps) {
        return proxy(PreparedStatement.class, ps, (String) args[0]);
      }
      if (result instanceof Statement st) {
        return proxy(Statement.class, st, null);
      }
      return result;
    };
    return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h);
  }
}
