package io.cocoindex.samples.postgres;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * A data source that hands out at most {@code size} connections at once, as a connection pool
 * does: a caller beyond waits for one to be closed, and fails after {@code timeout}.
 */
final class BoundedPool {
  private BoundedPool() {}

  static DataSource of(DataSource target, int size, Duration timeout) {
    Semaphore free = new Semaphore(size);
    return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, (p, method, args) -> {
          if (!method.getName().equals("getConnection")) {
            return invoke(method, target, args);
          }
          if (!free.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new SQLException("pool of " + size + " exhausted: no connection free after "
                + timeout.toMillis() + " ms");
          }
          Connection c;
          try {
            c = (Connection) invoke(method, target, args);
          } catch (Throwable t) {
            free.release();
            throw t;
          }
          AtomicBoolean closed = new AtomicBoolean();
          return Proxy.newProxyInstance(Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class}, (cp, m, a) -> {
                if (m.getName().equals("close") && closed.compareAndSet(false, true)) {
                  try {
                    return invoke(m, c, a);
                  } finally {
                    free.release();
                  }
                }
                return invoke(m, c, a);
              });
        });
  }

  private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
