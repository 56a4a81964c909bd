package io.cocoindex.runtime.workers;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Throughput of 1, 2 and 4 worker JVMs sharing the PostgreSQL state store, on components of one
 * row each whose sink waits 5 ms per request. Prints a table; run by hand:
 * {@code java -cp <test classpath> io.cocoindex.runtime.workers.WorkerScaling <jdbcUrl>
 * [components] [rowsPerRequest]}.
 *
 * <p>{@code rowsPerRequest} (default 1) is how many rows the sink's remote API takes per
 * request (see {@link Worker}): with 1, each worker is bound by its sink's latency, the case
 * extra workers are for. With 0 the engine merges whatever is pending into one 5 ms request, so
 * the wait is amortized over dozens of components and a worker is bound by CPU instead.
 *
 * <p>Each round runs 1, 2 and 4 workers back to back, three rounds, and the median per worker
 * count is reported, so a load that comes and goes on the machine hits every count alike. The
 * time runs from a barrier, once every worker's JVM is up and its store open, to the last worker
 * exiting: JVM start-up (about a second of CPU per JVM, and several JVMs starting at once on a
 * small machine slow each other down) is excluded for every worker count alike. With {@code
 * --include-startup} as the last argument the time runs from starting the JVMs instead (the
 * method of the first measurements). With {@code -Dcocoindex.worker.bodyMillis=n} each
 * component's body takes n ms (a slow call), in every worker.
 */
public final class WorkerScaling {
  private static final int[] WORKERS = {1, 2, 4};

  public static void main(String[] args) throws Exception {
    String baseUrl = args[0];
    int components = args.length > 1 && !args[1].startsWith("--")
        ? Integer.parseInt(args[1]) : 3000;
    boolean includeStartup = args[args.length - 1].equals("--include-startup");
    int plain = includeStartup ? args.length - 1 : args.length;
    int rowsPerRequest = plain > 2 ? Integer.parseInt(args[2]) : 1;
    List<List<Double>> runs = new ArrayList<>();
    for (int i = 0; i < WORKERS.length; i++) {
      runs.add(new ArrayList<>());
    }
    for (int rep = 0; rep < 3; rep++) {
      for (int i = 0; i < WORKERS.length; i++) {
        runs.get(i).add(run(baseUrl, WORKERS[i], components, rowsPerRequest, includeStartup));
      }
    }
    System.out.printf("%d components, %d row(s) per sink request (0 = the whole batch), timed %s%n",
        components, rowsPerRequest,
        includeStartup ? "from starting the JVMs" : "from the barrier once every worker is up");
    System.out.printf("%-8s %10s %12s %8s  %s%n", "workers", "seconds", "components/s", "speedup",
        "runs (s)");
    double base = 0;
    for (int i = 0; i < WORKERS.length; i++) {
      int workers = WORKERS[i];
      List<Double> sorted = new ArrayList<>(runs.get(i));
      sorted.sort(null);
      double seconds = sorted.get(1);
      double rate = components / seconds;
      if (workers == 1) {
        base = rate;
      }
      System.out.printf("%-8d %10.2f %12.0f %7.2fx  %s%n", workers, seconds, rate, rate / base,
          runs.get(i));
    }
  }

  /** Seconds for {@code workers} JVMs started together to apply {@code components} components. */
  static double run(String baseUrl, int workers, int components, int rowsPerRequest,
      boolean includeStartup) throws Exception {
    String schema = "bench_" + UUID.randomUUID().toString().replace("-", "");
    String url = baseUrl + (baseUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    exec(baseUrl, "CREATE SCHEMA " + schema);
    exec(url, "CREATE TABLE sink_rows(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    exec(url, "CREATE TABLE sink_log(seq BIGSERIAL PRIMARY KEY, key TEXT NOT NULL, value TEXT,"
        + " verb TEXT NOT NULL, worker TEXT NOT NULL)");
    List<Process> ps = new ArrayList<>();
    try {
      long start = System.nanoTime();
      for (int i = 0; i < workers; i++) {
        ps.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"),
            "-D" + Worker.BARRIER + "=" + !includeStartup,
            "-D" + Worker.BODY_MILLIS + "=" + Long.getLong(Worker.BODY_MILLIS, 0),
            Worker.class.getName(), url, "w" + i, String.valueOf(components), "v1", "5", "spread",
            String.valueOf(rowsPerRequest))
            .redirectErrorStream(true).start());
      }
      List<BufferedReader> outputs = new ArrayList<>();
      for (Process p : ps) {
        outputs.add(new BufferedReader(
            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
      }
      if (!includeStartup) {
        for (BufferedReader out : outputs) {
          String line;
          do {
            line = out.readLine();
          } while (line != null && !line.equals(Worker.READY));
          if (line == null) {
            throw new IllegalStateException("a worker exited before it was up");
          }
        }
        start = System.nanoTime();
        for (Process p : ps) {
          p.getOutputStream().write('\n');
          p.getOutputStream().flush();
        }
      }
      for (BufferedReader out : outputs) {
        while (out.readLine() != null) {
          // drained so that a chatty worker never blocks on a full pipe
        }
      }
      for (Process p : ps) {
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
          throw new IllegalStateException("a worker failed");
        }
      }
      return (System.nanoTime() - start) / 1e9;
    } finally {
      ps.forEach(Process::destroyForcibly);
      exec(baseUrl, "DROP SCHEMA " + schema + " CASCADE");
    }
  }

  private static void exec(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
