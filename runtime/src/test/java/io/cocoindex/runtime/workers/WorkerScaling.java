package io.cocoindex.runtime.workers;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Throughput of 1, 2 and 4 worker JVMs sharing the PostgreSQL state store, on components whose
 * sink waits 5 ms per batch (latency-bound I/O). Prints a table; run by hand:
 * {@code java -cp <test classpath> io.cocoindex.runtime.workers.WorkerScaling <jdbcUrl> [components]}.
 */
public final class WorkerScaling {
  public static void main(String[] args) throws Exception {
    String baseUrl = args[0];
    int components = args.length > 1 ? Integer.parseInt(args[1]) : 3000;
    System.out.printf("%-8s %10s %12s %8s%n", "workers", "seconds", "components/s", "speedup");
    double base = 0;
    for (int workers : new int[] {1, 2, 4}) {
      List<Double> runs = new ArrayList<>();
      for (int rep = 0; rep < 3; rep++) {
        runs.add(run(baseUrl, workers, components));
      }
      runs.sort(null);
      double seconds = runs.get(1);
      double rate = components / seconds;
      if (workers == 1) {
        base = rate;
      }
      System.out.printf("%-8d %10.2f %12.0f %7.2fx%n", workers, seconds, rate, rate / base);
    }
  }

  /** Seconds for {@code workers} JVMs started together to apply {@code components} components. */
  static double run(String baseUrl, int workers, int components) throws Exception {
    String schema = "bench_" + UUID.randomUUID().toString().replace("-", "");
    String url = baseUrl + (baseUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    exec(baseUrl, "CREATE SCHEMA " + schema);
    exec(url, "CREATE TABLE sink_rows(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    exec(url, "CREATE TABLE sink_log(seq BIGSERIAL PRIMARY KEY, key TEXT NOT NULL, value TEXT,"
        + " verb TEXT NOT NULL, worker TEXT NOT NULL)");
    try {
      long start = System.nanoTime();
      List<Process> ps = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        ps.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"),
            Worker.class.getName(), url, "w" + i, String.valueOf(components), "v1", "5")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
      }
      for (Process p : ps) {
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
          throw new IllegalStateException("a worker failed");
        }
      }
      return (System.nanoTime() - start) / 1e9;
    } finally {
      exec(baseUrl, "DROP SCHEMA " + schema + " CASCADE");
    }
  }

  private static void exec(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
