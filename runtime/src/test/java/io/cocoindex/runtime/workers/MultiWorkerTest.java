package io.cocoindex.runtime.workers;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.ThrowawaySchema;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Several worker JVMs sharing one PostgreSQL state store. */
class MultiWorkerTest {
  static final int COMPONENTS = 3000;

  @TempDir Path logs;
  @RegisterExtension final ThrowawaySchema pg = new ThrowawaySchema("w_");
  String url;
  final List<Process> processes = new ArrayList<>();

  @BeforeEach
  void sinkTables() throws Exception {
    url = pg.url();
    sql(url, "CREATE TABLE sink_rows(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    sql(url, "CREATE TABLE sink_log(seq BIGSERIAL PRIMARY KEY, key TEXT NOT NULL, value TEXT,"
        + " verb TEXT NOT NULL, worker TEXT NOT NULL)");
    // Killed before the schema is dropped: a worker still running holds its tables.
    pg.closeLast(() -> processes.forEach(Process::destroyForcibly));
  }

  static void sql(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  long count(String query) throws Exception {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  Process worker(String name, String... args) throws Exception {
    return worker(false, name, args);
  }

  /**
   * A worker process; with {@code barrier} it opens its store, prints {@link Worker#READY} and
   * waits for {@link #start} before it updates.
   */
  Process worker(boolean barrier, String name, String... args) throws Exception {
    return worker(barrier, 0, name, args);
  }

  /** As above, each component's body taking {@code bodyMillis} (a slow call). */
  Process worker(boolean barrier, long bodyMillis, String name, String... args)
      throws Exception {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-D" + Worker.BARRIER + "=" + barrier,
        "-D" + Worker.BODY_MILLIS + "=" + bodyMillis,
        "-cp", System.getProperty("java.class.path"), Worker.class.getName(), url, name));
    cmd.addAll(List.of(args));
    File log = logs.resolve(name + ".log").toFile();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
    processes.add(p);
    return p;
  }

  /** Waits until every worker (started with a barrier) is ready, then lets them all update. */
  void start(Map<String, Process> workers) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    for (String name : workers.keySet()) {
      Path log = logs.resolve(name + ".log");
      while (!(Files.exists(log) && Files.readAllLines(log).contains(Worker.READY))) {
        assertThat(System.nanoTime() < deadline && workers.get(name).isAlive())
            .as(name + " ready; log:\n" + (Files.exists(log) ? Files.readString(log) : ""))
            .isTrue();
        Thread.sleep(20);
      }
    }
    for (Process p : workers.values()) {
      p.getOutputStream().write('\n');
      p.getOutputStream().close();
    }
  }

  void awaitSuccess(Process p, String name) throws Exception {
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).as(name + " finished").isTrue();
    assertThat(p.exitValue()).as(name + " exit code; log:\n"
        + Files.readString(logs.resolve(name + ".log"))).isZero();
  }

  /**
   * Three workers started together share a round of 3,000 components, each applying some, every
   * action applied once. Bodies of no time and of 5 ms (a model call, say): workers go through the
   * components in the same order, and one starting later skips what the first has claimed. It
   * used to skip a few components a round trip (two per thread, leased ahead of their start, as
   * no body of its own had run): with quick bodies the first processed them about as fast, and a
   * later worker, trailing it, sometimes got none (bench/JOURNAL.md, fiftieth session). A
   * component skipped now widens the gate by a slot until one is taken, so a worker meeting
   * claimed components asks for twice as many each round trip, up to 64.
   */
  @ParameterizedTest(name = "bodies of {0} ms")
  @ValueSource(ints = {0, 5})
  void threeWorkersShareTheComponentsAndApplyEachActionOnce(int bodyMillis) throws Exception {
    Map<String, Process> workers = new LinkedHashMap<>();
    for (String name : List.of("w1", "w2", "w3")) {
      workers.put(name, worker(true, bodyMillis, name, String.valueOf(COMPONENTS), "v1", "1"));
    }
    start(workers); // all up before any updates: a JVM that started first could do it all
    for (Map.Entry<String, Process> w : workers.entrySet()) {
      awaitSuccess(w.getValue(), w.getKey());
    }
    assertThat(count("SELECT count(*) FROM sink_rows WHERE value = 'v1'")).isEqualTo(COMPONENTS);
    assertThat(count("SELECT count(*) FROM sink_log")).isEqualTo(COMPONENTS);
    assertThat(count("SELECT count(DISTINCT key) FROM sink_log")).isEqualTo(COMPONENTS);
    // The work was really shared: every worker applied some of it.
    assertThat(count("SELECT count(DISTINCT worker) FROM sink_log")).isEqualTo(3);
  }

  @Test
  void workerKilledMidRunLeavesNothingLostOrDuplicatedAfterTheSurvivorsRerun() throws Exception {
    awaitSuccess(worker("seed", String.valueOf(COMPONENTS), "v1"), "seed");
    Process victim = worker("victim", String.valueOf(COMPONENTS), "v2", "5");
    Process w2 = worker("w2", String.valueOf(COMPONENTS), "v2", "5");
    Process w3 = worker("w3", String.valueOf(COMPONENTS), "v2", "5");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (count("SELECT count(*) FROM sink_log WHERE worker = 'victim'") < 20
        && System.nanoTime() < deadline && victim.isAlive()) {
      Thread.sleep(50);
    }
    victim.destroyForcibly(); // kill -9: its leases die with its connections
    victim.waitFor(30, TimeUnit.SECONDS);
    awaitSuccess(w2, "w2");
    awaitSuccess(w3, "w3");
    awaitSuccess(worker("w2-rerun", String.valueOf(COMPONENTS), "v2"), "w2-rerun");
    awaitSuccess(worker("w3-rerun", String.valueOf(COMPONENTS), "v2"), "w3-rerun");

    assertThat(count("SELECT count(*) FROM sink_rows")).isEqualTo(COMPONENTS);
    assertThat(count("SELECT count(*) FROM sink_rows WHERE value = 'v2'")).isEqualTo(COMPONENTS);
    try (PostgresStateStore store = PostgresStateStore.open(url);
        App app = App.create("workers", Environment.builder().stateStore(store).build(),
            ctx -> {})) {
      assertThat(app.status().unsettled()).isEmpty();
      assertThat(app.status().total()).isEqualTo(COMPONENTS);
    }
  }

  @Test
  void twoWorkersRacingForATransferredStateEndWithOneOwnerAndTheLastValue() throws Exception {
    awaitSuccess(worker("seed", "0", "1", "0", "transfer-before"), "seed");
    Process a = worker("a", "0", "2", "0", "transfer");
    Process b = worker("b", "0", "2", "0", "transfer");
    awaitSuccess(a, "a");
    awaitSuccess(b, "b");
    assertThat(count("SELECT count(*) FROM sink_rows WHERE key = 'x' AND value = '2'"))
        .isEqualTo(1);
    assertThat(count("SELECT count(*) FROM sink_log WHERE key = 'x' AND verb = 'delete'"))
        .isZero();
    try (PostgresStateStore store = PostgresStateStore.open(url);
        App app = App.create("workers", Environment.builder().stateStore(store).build(),
            ctx -> {})) {
      assertThat(app.status().providers().get("rows")).hasSize(1);
      assertThat(app.status().unsettled()).isEmpty();
    }
  }
}
