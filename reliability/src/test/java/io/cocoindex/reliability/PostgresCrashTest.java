package io.cocoindex.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.reliability.PgCrashWorker.PgWorld;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.inspect.StatusReport;
import io.cocoindex.runtime.state.PostgresStateStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of workers sharing the PostgreSQL state store. Worker JVMs ({@link PgCrashWorker}) run
 * the same app (about 600 rows over 30-40 components, half of them memoized, two thirds of them
 * mounted by four memoized groups, a fifth of the rows in a container that becomes a leaf and
 * back: {@link PgCrashWorker}) over one PostgreSQL target table, and random ones are killed
 * at random moments; then a round of two fresh workers runs, on the same declared world, the
 * next one (rows deleted, changed and moved between components) or the one the last clean round
 * left, and must converge: the table holds exactly the declared rows, the store exactly one
 * settled record per declared state and one record per component and memoized group, nothing
 * else, the strict sink never saw a row in a form the engine did not list as possible, no key was
 * applied twice in the clean round, and a preview plans nothing. Some trials kill {@code
 * dropState} instead, then finish the drop and check that nothing is left in the table or the
 * store.
 *
 * <p>Needs {@code COCOINDEX_TEST_POSTGRES_URL} (skipped without it). {@code
 * -Dreliability.pgTrials=N} for more trials, {@code -Dreliability.seed=N} to replay the choices
 * (the kill moments depend on timing), {@code -Dreliability.pgSinkDelay=ms} for slower sinks (more
 * kills land in sinks and commits). {@code -Dreliability.pgMixedPercent=P} lets the last worker
 * of P% of the killed rounds see the next world, as a worker that read the source after it
 * changed (0 by default; the engine bugs it found are fixed, see {@link
 * PostgresWorkerViewsTest}). {@code -Dreliability.pgMemo=false} memoizes no component; {@code
 * -Dreliability.pgAbsent=false} declares {@code t} in every generation, as the worlds were drawn
 * before the fifty-sixth session (to replay a trial recorded then). {@code
 * -Dreliability.pgFromTrial=T} replays trial T alone (the choices of the trials before it are
 * drawn, not run; a setup round writes the world the clean round before it left), {@code
 * -Dreliability.pgRepeat=N} runs the trials N times over. {@code -Dreliability.pgGrace=ms} gives
 * the workers (and this test's own stores) a grace before a run whose lock went is taken for dead
 * ({@link PostgresStateStore#DEAD_RUN_GRACE_PROPERTY}; 0 by default: a killed worker's run is
 * dead at once, as these trials were recorded); with one, a survivor of a round in which a worker
 * died may end with components refused (exit 4), and the rounds after wait the grace. A worker
 * that does not finish in {@code -Dreliability.pgTimeout} seconds (60) fails the test with the
 * thread dumps of every worker still running and the database sessions of the workers.
 */
class PostgresCrashTest {
  static final int KEYS = 600;
  static final long TIMEOUT_SECONDS = Long.getLong("reliability.pgTimeout", 60);
  static final long SINK_DELAY_MILLIS = Long.getLong("reliability.pgSinkDelay", 2);
  /** How often (percent) the last worker of a crash round sees the next world. */
  static final int MIXED_PERCENT = Integer.getInteger("reliability.pgMixedPercent", 0);
  /**
   * The grace before a run whose lock went is taken for dead, in ms: within it, a killed
   * worker's writes are in flight for the others, who refuse to change a container above them.
   */
  static final long GRACE_MILLIS = Long.getLong(PostgresStateStore.DEAD_RUN_GRACE_PROPERTY, 0);

  @TempDir Path logs;
  String baseUrl;
  String url;
  String schema;
  final List<Process> processes = new ArrayList<>();
  /** Every worker started, to report on those still running when one hangs. */
  final List<Child> started = new ArrayList<>();
  /** Rounds whose workers saw different worlds (see {@link #MIXED_PERCENT}). */
  final List<Integer> mixedRounds = new ArrayList<>();

  @BeforeEach
  void schema() throws Exception {
    baseUrl = System.getenv("COCOINDEX_TEST_POSTGRES_URL");
    if (baseUrl == null) {
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError("COCOINDEX_TEST_POSTGRES_URL is not set but CI=true");
      }
      Assumptions.abort("COCOINDEX_TEST_POSTGRES_URL is not set");
    }
    schema = "pgcrash_" + UUID.randomUUID().toString().replace("-", "");
    url = baseUrl + (baseUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    sql(baseUrl, "CREATE SCHEMA " + schema);
    sql(url, "CREATE TABLE target_rows(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    sql(url, "CREATE TABLE sink_log(seq BIGSERIAL PRIMARY KEY, round INT NOT NULL,"
        + " worker TEXT NOT NULL, key TEXT NOT NULL, verb TEXT NOT NULL, value TEXT,"
        + " expected TEXT NOT NULL, may_be_missing BOOLEAN NOT NULL)");
    sql(url, "CREATE TABLE violations(seq BIGSERIAL PRIMARY KEY, round INT NOT NULL,"
        + " worker TEXT NOT NULL, key TEXT NOT NULL, verb TEXT NOT NULL, value TEXT,"
        + " expected TEXT NOT NULL, may_be_missing BOOLEAN NOT NULL, actual TEXT)");
    sql(url, "CREATE TABLE disputed(round INT NOT NULL, key TEXT NOT NULL,"
        + " PRIMARY KEY(round, key))");
  }

  @AfterEach
  void drop() throws Exception {
    processes.forEach(Process::destroyForcibly);
    if (schema != null && !Boolean.getBoolean("reliability.keepSchema")) {
      sql(baseUrl, "DROP SCHEMA " + schema + " CASCADE");
    }
  }

  /** A worker JVM and what it printed. */
  final class Child {
    final String name;
    final Process process;
    final List<String> lines = new ArrayList<>();
    volatile long startedAt;
    volatile long doneAt;
    volatile boolean killed;
    final Thread reader;

    Child(String name, int round, long seed, int generation, String mode) throws Exception {
      this.name = name;
      List<String> cmd = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
          "-D" + PgCrashWorker.MEMO + "=" + System.getProperty(PgCrashWorker.MEMO, "true"),
          "-D" + PgCrashWorker.ABSENT + "=" + System.getProperty(PgCrashWorker.ABSENT, "true"),
          "-D" + PostgresStateStore.DEAD_RUN_GRACE_PROPERTY + "="
              + System.getProperty(PostgresStateStore.DEAD_RUN_GRACE_PROPERTY, "0"),
          "-cp", System.getProperty("java.class.path"), PgCrashWorker.class.getName()));
      cmd.addAll(PgCrashWorker.args(url, name, round, seed, generation, mode, SINK_DELAY_MILLIS,
          KEYS));
      process = new ProcessBuilder(cmd)
          .redirectError(ProcessBuilder.Redirect.appendTo(logs.resolve(name + ".err").toFile()))
          .start();
      processes.add(process);
      started.add(this);
      reader = new Thread(() -> {
        try (BufferedReader out = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = out.readLine()) != null) {
            synchronized (lines) {
              lines.add(line);
            }
            if (line.equals("START")) {
              startedAt = System.nanoTime();
            } else if (line.equals("DONE")) {
              doneAt = System.nanoTime();
            }
          }
        } catch (Exception e) {
          // killed
        }
      });
      reader.setDaemon(true);
      reader.start();
    }

    boolean done() {
      synchronized (lines) {
        return lines.contains("DONE");
      }
    }

    long runMillis() {
      return (doneAt - startedAt) / 1_000_000;
    }

    /** Waits for the end; a run that ends must end well (nothing fails in these runs). */
    void awaitSuccess() throws Exception {
      awaitSuccess(false);
    }

    /**
     * As {@link #awaitSuccess()}; {@code refusalsExcused}: in a mixed round whose two views
     * disagree about {@code t}, a run may also end with components refused for it (exit 4).
     */
    void awaitSuccess(boolean refusalsExcused) throws Exception {
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        String dump = threadDump(process.pid());
        String others = hangReport(this);
        process.destroyForcibly();
        throw new AssertionError(name + " did not finish in " + TIMEOUT_SECONDS + " s: " + lines
            + "\n" + Files.readString(logs.resolve(name + ".err")) + "\nits threads:\n" + dump
            + others);
      }
      reader.join(10_000); // the last lines it printed
      boolean refused = refusalsExcused && process.exitValue() == 4;
      if ((process.exitValue() != 0 && !refused) || !done()) {
        throw new AssertionError(name + " failed with exit " + process.exitValue() + ": "
            + lines + "\n" + Files.readString(logs.resolve(name + ".err")));
      }
    }

    /**
     * Kills it (SIGKILL) {@code afterMillis} after it started its run, or, with {@code
     * afterActions} &gt; 0, once its sink applied that many actions; unless it ended first.
     */
    boolean killAfter(long afterMillis, int afterActions) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (startedAt == 0 && process.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      if (afterActions > 0) {
        try (Connection c = DriverManager.getConnection(url);
            java.sql.PreparedStatement applied = c.prepareStatement(
                "SELECT count(*) FROM sink_log WHERE worker = ?")) {
          applied.setString(1, name);
          while (process.isAlive() && System.nanoTime() < deadline) {
            try (ResultSet rs = applied.executeQuery()) {
              rs.next();
              if (rs.getLong(1) >= afterActions) {
                break;
              }
            }
            Thread.sleep(2);
          }
        }
      } else if (process.waitFor(afterMillis, TimeUnit.MILLISECONDS)) {
        return false;
      }
      if (!process.isAlive()) {
        return false;
      }
      killed = true;
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      reader.join(10_000);
      return !done();
    }
  }

  /**
   * When {@code hung} did not finish: the database sessions of the workers (what each runs or
   * waits for, the advisory locks it holds), and the threads of the other workers still running.
   */
  String hangReport(Child hung) {
    StringBuilder out = new StringBuilder("\nsessions:\n");
    try (Connection c = DriverManager.getConnection(baseUrl); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT a.application_name, a.pid, a.state,"
            + " a.wait_event_type, a.wait_event, left(a.query, 160),"
            + " (SELECT string_agg(((l.classid::bigint << 32) | l.objid::bigint)::text, ' ')"
            + " FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted),"
            + " (SELECT string_agg(l.locktype || ' ' || l.mode, ', ') FROM pg_locks l"
            + " WHERE l.pid = a.pid AND NOT l.granted)"
            + " FROM pg_stat_activity a WHERE a.datname = current_database()"
            + " AND a.application_name ~ '^r[0-9]' ORDER BY 1, 2")) {
      while (rs.next()) {
        out.append("  ").append(rs.getString(1)).append(" pid ").append(rs.getInt(2))
            .append(' ').append(rs.getString(3)).append(" wait ").append(rs.getString(4))
            .append('/').append(rs.getString(5)).append(" waiting for ").append(rs.getString(8))
            .append(" holds advisory [").append(rs.getString(7)).append("]: ")
            .append(rs.getString(6)).append('\n');
      }
    } catch (SQLException e) {
      out.append("  (cannot read them: ").append(e).append(")\n");
    }
    for (Child other : started) {
      if (other != hung && other.process.isAlive()) {
        out.append("\n").append(other.name).append(" is running too: ").append(other.lines)
            .append(", its threads:\n").append(threadDump(other.process.pid()));
      }
    }
    return out.toString();
  }

  static String threadDump(long pid) {
    try {
      Process jstack = new ProcessBuilder(
          Path.of(System.getProperty("java.home"), "bin", "jstack").toString(),
          Long.toString(pid)).redirectErrorStream(true).start();
      String out = new String(jstack.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      jstack.waitFor(30, TimeUnit.SECONDS);
      return out;
    } catch (Exception e) {
      return "(no thread dump: " + e + ")";
    }
  }

  /**
   * Bounded by the trials asked for rather than the suite's default of five minutes, which a run
   * of 50 trials with {@code reliability.pgMixedPercent=60} reached on a loaded machine as its
   * 48th trial's clean round ran: each worker has a timeout of its own ({@code
   * reliability.pgTimeout}), past which the harness dumps its threads and sessions, where the
   * suite's would say nothing.
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.HOURS)
  void killedWorkersConvergeOnTheSharedStore() throws Exception {
    int trials = Integer.getInteger("reliability.pgTrials", 8);
    long seed = Long.getLong("reliability.seed", System.nanoTime());
    // Replaying one trial: the choices of the trials before it are drawn, not run; the setup
    // round runs the world the clean round before it left. Repeated pgRepeat times.
    int from = Integer.getInteger("reliability.pgFromTrial", 1);
    int repeat = Integer.getInteger("reliability.pgRepeat", 1);
    System.out.println("postgres crash test: seed " + seed + ", " + trials + " trials"
        + (from > 1 ? " from trial " + from : "") + (repeat > 1 ? ", " + repeat + " times" : "")
        + ", the leaf t declared by " + (Math.floorMod(seed, 2) == 1 ? "the root" : "a component"));
    List<String> log = new ArrayList<>();
    int killed = 0;
    try {
      for (int rep = 0; rep < repeat; rep++) {
        killed += trials(seed, trials, from, rep * 1000, log);
      }
    } finally {
      log.forEach(System.out::println);
    }
    int run = (trials - from + 1) * repeat;
    System.out.println(run + "/" + run + " converged (" + killed + " workers died mid-run)");
    assertThat(killed).as("workers that actually died mid-run")
        .isGreaterThanOrEqualTo(Math.max(1, run / 6));
  }

  /** Trials {@code from} to {@code trials} of {@code seed}; the workers that died mid-run. */
  int trials(long seed, int trials, int from, int roundBase, List<String> log) throws Exception {
    Random rnd = new Random(seed);
    int round = roundBase;
    int generation = 0;
    int killed = 0;
    int stored = 0; // the generation the last clean round left in the table
    long runMillis = 0;
    if (from <= 1) {
      runMillis = cleanRound(++round, seed, generation, log, "setup");
    } else {
      ++round;
    }
    for (int t = 1; t <= trials; t++) {
      boolean skip = t < from;
      if (t == from && from > 1) {
        runMillis = cleanRound(round, seed, generation, log, "setup of trial " + t);
      }
      boolean dropTrial = t % 4 == 0;
      if (rnd.nextInt(10) < 6) {
        generation++;
      }
      round++;
      int workers = dropTrial ? 1 + rnd.nextInt(2) : 2 + rnd.nextInt(2);
      // Sometimes the source changes while the round runs: the last worker sees the next world.
      boolean mixed = !dropTrial && rnd.nextInt(100) < MIXED_PERCENT;
      if (mixed && !skip) {
        mixedRounds.add(round);
        disputed(round, PgWorld.of(seed, generation, KEYS),
            PgWorld.of(seed, generation + 1, KEYS));
      }
      // About how many actions the round applies: what changed since the last clean round.
      Map<String, String> before = PgWorld.of(seed, stored, KEYS).rows();
      Map<String, String> now = dropTrial ? Map.of() : PgWorld.of(seed, generation, KEYS).rows();
      int changes = 0;
      for (String k : union(before.keySet(), now.keySet())) {
        if (!java.util.Objects.equals(before.get(k), now.get(k))) {
          changes++;
        }
      }
      List<Child> children = new ArrayList<>();
      for (int w = 0; w < workers && !skip; w++) {
        children.add(new Child("r" + round + "w" + w, round, seed,
            mixed && w == workers - 1 ? generation + 1 : generation,
            dropTrial ? "drop" : "update"));
      }
      // Kill some of them, at least one, each at a moment of its own.
      List<String> what = new ArrayList<>();
      int victims = 0;
      List<Thread> killers = new ArrayList<>();
      List<Boolean> died = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int w = 0; w < workers; w++) {
        boolean victim = w == 0 || rnd.nextInt(3) == 0;
        if (!victim) {
          continue;
        }
        victims++;
        // Half the victims at a random moment, half once their sink applied some actions (a
        // moment in the apply phase, when batches and commits are in flight).
        long after = (long) (rnd.nextDouble() * runMillis * 1.3);
        int afterActions = changes >= workers && rnd.nextBoolean()
            ? 1 + rnd.nextInt(changes / workers) : 0;
        if (skip) {
          continue;
        }
        Child c = children.get(w);
        what.add(c.name + " killed after " + (afterActions > 0 ? afterActions + " actions"
            : after + " ms"));
        Thread k = new Thread(() -> {
          try {
            died.add(c.killAfter(after, afterActions));
          } catch (Exception e) {
            died.add(false);
          }
        });
        k.start();
        killers.add(k);
      }
      if (skip) {
        if (dropTrial) {
          round++;
        }
        generation = cleanGeneration(rnd, generation, stored);
        ++round;
        stored = generation;
        continue;
      }
      for (Thread k : killers) {
        k.join();
      }
      int diedNow = (int) died.stream().filter(b -> b).count();
      killed += diedNow;
      String trial = "trial " + t + " (seed " + seed + ", round " + round + ", generation "
          + generation + (mixed ? " and " + (generation + 1) : "") + ", t "
          + shown(PgWorld.of(seed, generation, KEYS))
          + (mixed ? " and " + shown(PgWorld.of(seed, generation + 1, KEYS)) : "") + ", "
          + (dropTrial ? "dropState" : "update") + " by " + workers
          + " workers, " + String.join(", ", what) + "; died mid-run: " + children.stream()
              .filter(c -> c.killed && !c.done()).map(c -> c.name).toList() + ")";
      log.add(trial);
      boolean tDisputed = mixed && !PgWorld.of(seed, generation, KEYS).tForm()
          .equals(PgWorld.of(seed, generation + 1, KEYS).tForm());
      // With a grace, a survivor may meet a killed worker's writes in flight below t.
      boolean refusalsExcused = tDisputed || (GRACE_MILLIS > 0 && diedNow > 0);
      for (Child c : children) {
        if (!c.killed) {
          c.awaitSuccess(refusalsExcused); // survivors
        } else if (c.done()) {
          c.process.waitFor(30, TimeUnit.SECONDS); // killed after its run ended: fine
        }
      }
      log.add("  after it: " + crashRoundSummary(round));
      if (GRACE_MILLIS > 0 && diedNow > 0) {
        Thread.sleep(GRACE_MILLIS); // the killed workers' runs dead for the rounds after
      }
      if (dropTrial) {
        round++;
        Child finisher = new Child("r" + round + "drop", round, seed, generation, "drop");
        finisher.awaitSuccess();
        List<String> problems = droppedProblems();
        assertThat(problems).as(trial + ": after the drop was finished").isEmpty();
        log.add("  drop finished: table and store empty");
      }
      int killedGeneration = generation;
      generation = cleanGeneration(rnd, generation, stored);
      if (generation < killedGeneration) {
        log.add("  back on generation " + generation + ", the last clean round's");
      }
      runMillis = Math.max(300, cleanRound(++round, seed, generation, log, trial));
      stored = generation;
    }
    return killed;
  }

  /**
   * The world of the clean round after a killed one on {@code generation}: the same, the next
   * one, or the one the last clean round left ({@code stored}; the same when the killed round
   * ran it too). A memo recorded by that round and not replaced by the killed one (a group's,
   * whose members committed) must not hide what the killed round changed below it.
   */
  static int cleanGeneration(Random rnd, int generation, int stored) {
    switch (rnd.nextInt(3)) {
      case 1:
        return generation + 1;
      case 2:
        return stored;
      default:
        return generation;
    }
  }

  /** Two workers run the world together, uninterrupted; then everything must have converged. */
  long cleanRound(int round, long seed, int generation, List<String> log, String after)
      throws Exception {
    PgWorld world = PgWorld.of(seed, generation, KEYS);
    PgRecoveryOracle oracle = PgRecoveryOracle.before(url, world);
    Child a = new Child("r" + round + "a", round, seed, generation, "update");
    Child b = new Child("r" + round + "b", round, seed, generation, "update");
    a.awaitSuccess();
    b.awaitSuccess();
    List<String> problems = new ArrayList<>(oracle.problems(url, round));
    problems.addAll(convergenceProblems(world, round));
    assertThat(problems).as(after + "; then a clean round " + round + " on generation "
        + generation).isEmpty();
    log.add("  clean round " + round + " (generation " + generation + ", " + world.rows().size()
        + " rows, t " + shown(world) + "; previewed: " + oracle
        + "): converged");
    return Math.max(a.runMillis(), b.runMillis());
  }

  List<String> convergenceProblems(PgWorld world, int cleanRound) throws Exception {
    List<String> problems = new ArrayList<>();
    Map<String, String> expected = world.rows();
    Map<String, String> actual = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT key, value FROM target_rows")) {
        while (rs.next()) {
          actual.put(rs.getString(1), rs.getString(2));
        }
      }
      diff("target_rows", expected, actual, problems);
      try (ResultSet rs = s.executeQuery("SELECT round, worker, key, verb, value, expected,"
          + " may_be_missing, actual FROM violations WHERE " + unexpectedViolation()
          + " ORDER BY seq LIMIT 5")) {
        while (rs.next()) {
          problems.add("the sink found key " + rs.getString(3) + " as '" + rs.getString(8)
              + "' applying " + rs.getString(4) + " '" + rs.getString(5) + "' in round "
              + rs.getInt(1) + " (worker " + rs.getString(2) + "), but the handler was given"
              + " possible records [" + rs.getString(6) + "], may be missing "
              + rs.getBoolean(7));
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT key, count(*), string_agg(worker || ':' || verb,"
          + " ' ') FROM sink_log WHERE round = " + cleanRound
          + " GROUP BY key HAVING count(*) > 1 ORDER BY key LIMIT 5")) {
        while (rs.next()) {
          problems.add("key " + rs.getString(1) + " was applied " + rs.getLong(2)
              + " times in the clean round: " + rs.getString(3));
        }
      }
      long stateRows = count(s, "SELECT count(*) FROM cocoindex_target_state WHERE app = '"
          + PgCrashWorker.APP + "'");
      if (stateRows != expected.size()) {
        problems.add("the store's state table has " + stateRows + " rows for "
            + expected.size() + " declared states");
      }
      // One per declared component and memoized group (nor has a group that is not memoized),
      // the root's, and t's owner (PgWorld#componentRecords).
      long componentRows = count(s, "SELECT count(*) FROM cocoindex_component WHERE app = '"
          + PgCrashWorker.APP + "'");
      if (componentRows != world.componentRecords()) {
        problems.add("the store's component table has " + componentRows + " rows for "
            + world.components().size() + " declared components and " + world.groups().size()
            + (world.memoizedGroups() ? " memoized" : " plain") + " groups");
      }
    }
    try (PostgresStateStore store = PostgresStateStore.open(url);
        App app = App.create(PgCrashWorker.APP, Environment.builder().stateStore(store).build(),
            PgCrashWorker.main(world, new PgCrashWorker.RowHandler(actions -> {
              throw new AssertionError("a preview applied " + actions);
            })))) {
      StatusReport status = app.status();
      if (!status.unsettled().isEmpty()) {
        problems.add(status.unsettled().size() + " unsettled states, e.g. "
            + status.unsettled().get(0));
      }
      Set<String> tracked = new TreeSet<>();
      status.providers().forEach((provider, keys) -> {
        if (!provider.equals("rows") && !provider.equals("tables")
            && !(world.table() && provider.equals("tables/" + PgCrashWorker.TABLE))) {
          problems.add("states tracked under an unknown provider " + provider);
        }
        keys.forEach(k -> tracked.add(((StableKey.Str) k).value()));
      });
      if (status.total() != expected.size() || !tracked.equals(expected.keySet())) {
        Set<String> extra = new TreeSet<>(tracked);
        extra.removeAll(expected.keySet());
        Set<String> missing = new TreeSet<>(expected.keySet());
        missing.removeAll(tracked);
        problems.add("the store tracks " + status.total() + " states for " + expected.size()
            + " declared; not declared: " + first(extra) + ", not tracked: " + first(missing));
      }
      var preview = app.preview();
      if (preview.hasChanges()) {
        problems.add("a preview still plans " + preview.changes().size() + " changes, e.g. "
            + preview.changes().stream().limit(3).toList());
      }
    }
    return problems;
  }

  /** How a trial's log shows {@code t} in {@code world}: "a table", "a leaf" or "absent". */
  static String shown(PgWorld world) {
    return world.tDeclared() ? "a " + world.tForm() : world.tForm();
  }

  /** What the crash round left: actions applied, by whom, keys applied twice, unsettled states. */
  String crashRoundSummary(int round) throws Exception {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      String applied = query(s, "SELECT worker || '=' || count(*) FROM sink_log WHERE round = "
          + round + " GROUP BY worker ORDER BY worker").toString();
      List<String> twice = query(s, "SELECT key || ':' || string_agg(worker || '/' || verb"
          + " || '(' || coalesce(value, '-') || ' after [' || expected || ']' ||"
          + " CASE WHEN may_be_missing THEN '?' ELSE '' END || ')', ' ')"
          + " FROM sink_log WHERE round = " + round + " GROUP BY key HAVING count(*) > 1"
          + " ORDER BY key LIMIT 4");
      long unsettled = -1;
      try (PostgresStateStore store = PostgresStateStore.open(url);
          App app = App.create(PgCrashWorker.APP, Environment.builder().stateStore(store)
              .build(), ctx -> {})) {
        unsettled = app.status().unsettled().size();
      }
      long surprises = count(s, "SELECT count(*) FROM violations WHERE round = " + round);
      return "applied " + applied + ", applied twice " + twice + ", " + unsettled
          + " unsettled states" + (surprises > 0 ? ", " + surprises + " sink surprises" : "");
    }
  }

  /**
   * Records the keys that the two worlds of mixed round {@code round} dispute: declared in one
   * only, or in two components; and the container, where one declares it with children and
   * the other without.
   */
  void disputed(int round, PgWorld a, PgWorld b) throws SQLException {
    Map<String, String> ownerInA = owners(a);
    Map<String, String> ownerInB = owners(b);
    if (!a.tForm().equals(b.tForm())) {
      ownerInA.put(PgCrashWorker.TABLE, a.tForm());
      ownerInB.put(PgCrashWorker.TABLE, b.tForm());
    }
    try (Connection c = DriverManager.getConnection(url);
        java.sql.PreparedStatement insert =
            c.prepareStatement("INSERT INTO disputed(round, key) VALUES(?, ?)")) {
      for (String k : union(ownerInA.keySet(), ownerInB.keySet())) {
        if (!java.util.Objects.equals(ownerInA.get(k), ownerInB.get(k))) {
          insert.setInt(1, round);
          insert.setString(2, k);
          insert.addBatch();
        }
      }
      insert.executeBatch();
    }
  }

  static Map<String, String> owners(PgWorld world) {
    Map<String, String> out = new TreeMap<>();
    world.components().forEach((c, rows) -> rows.keySet().forEach(k -> out.put(k, c)));
    world.rootRows().keySet().forEach(k -> out.put(k, "the root"));
    return out;
  }

  /**
   * The SQL condition (on {@code violations}) of a violation that is not expected. Where two
   * workers saw different worlds, their components may write one state in one round (two
   * components declaring it, or one declaring it and a sweep deleting it), each having read it
   * before the other's precommit: a create then finds the other's row, an update finds the row as
   * the other worker wrote or deleted it, although its handler was not given the other's record.
   * The engine does not serialize a component's writes of the states it owns with other workers'
   * (see RELIABILITY.md); the next round must converge all the same. Where they disagree on
   * whether the container has children, one's action taking the rows along may find, or leave,
   * rows the other writes there.
   */
  String unexpectedViolation() {
    return "NOT (violations.round = ANY('" + mixedRounds.stream().map(String::valueOf)
        .collect(Collectors.joining(",", "{", "}")) + "'::int[]) AND ((violations.expected = ''"
        + " AND violations.may_be_missing) OR (EXISTS (SELECT 1 FROM disputed d"
        + " WHERE d.round = violations.round AND d.key = violations.key) AND EXISTS (SELECT 1"
        + " FROM sink_log l WHERE l.round = violations.round AND l.key = violations.key"
        + " AND l.worker <> violations.worker"
        + " AND l.value IS NOT DISTINCT FROM violations.actual))"
        + " OR (violations.key LIKE '" + PgCrashWorker.TABLE_ROW + "%' AND EXISTS (SELECT 1"
        + " FROM disputed d WHERE d.round = violations.round AND d.key = '"
        + PgCrashWorker.TABLE + "'))))";
  }

  /** After a finished drop: nothing in the table, nothing in the store for the app. */
  List<String> droppedProblems() throws Exception {
    List<String> problems = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      long rows = count(s, "SELECT count(*) FROM target_rows");
      if (rows != 0) {
        problems.add(rows + " rows left in target_rows, e.g. " + query(s,
            "SELECT key || '=' || value FROM target_rows ORDER BY key LIMIT 3"));
      }
      for (String table : List.of("cocoindex_target_state", "cocoindex_component")) {
        long n = count(s, "SELECT count(*) FROM " + table + " WHERE app = '"
            + PgCrashWorker.APP + "'");
        if (n != 0) {
          problems.add(n + " rows left in " + table);
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT key, verb, value, expected, may_be_missing,"
          + " actual, worker FROM violations WHERE " + unexpectedViolation()
          + " ORDER BY seq LIMIT 5")) {
        while (rs.next()) {
          problems.add("the sink found key " + rs.getString(1) + " as '" + rs.getString(6)
              + "' applying " + rs.getString(2) + " (worker " + rs.getString(7)
              + "), possible records [" + rs.getString(4) + "], may be missing "
              + rs.getBoolean(5));
        }
      }
    }
    return problems;
  }

  static String first(Set<String> keys) {
    return keys.stream().limit(5).collect(Collectors.joining(", ", "[", keys.size() > 5
        ? ", ... " + keys.size() + " in all]" : "]"));
  }

  static void diff(String what, Map<String, String> expected, Map<String, String> actual,
      List<String> problems) {
    if (expected.equals(actual)) {
      return;
    }
    List<String> d = new ArrayList<>();
    for (String k : new TreeSet<>(union(expected.keySet(), actual.keySet()))) {
      String e = expected.get(k);
      String a = actual.get(k);
      if (e == null ? a != null : !e.equals(a)) {
        d.add(k + ": expected " + e + ", found " + a);
      }
    }
    problems.add(what + " differs from the declared rows in " + d.size() + " keys: "
        + d.stream().limit(6).toList());
  }

  static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new TreeSet<>(a);
    out.addAll(b);
    return out;
  }

  static long count(Statement s, String query) throws SQLException {
    try (ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static List<String> query(Statement s, String query) throws SQLException {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(query)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  static void sql(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
