package io.cocoindex.testkit;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An update run in a child JVM that the test can kill ({@code destroyForcibly}, SIGKILL) in the
 * middle of it: the crash {@link CocoIndexExtension#updateCrashing} cannot simulate, one that
 * lands inside the sink's own I/O (a torn write, a temporary file left behind).
 *
 * <p>The child is a class with a {@code main} in the test sources that builds the app and hands
 * it to {@link #update(App)}, which announces on its standard output when the update starts and
 * when it returns. The test runs that class with {@link #of}, on its own classpath, and either
 * lets it finish ({@link #run()}) or kills it some time after the start ({@link #runAndKill}),
 * then opens the same state in its own JVM, runs a clean update and checks that the external
 * system converged:
 *
 * <pre>{@code
 * public final class KvKillChild {              // the child JVM: args stateDir generation
 *   public static void main(String[] args) {
 *     try (App app = App.create("kv", Environment.builder().dbPath(Path.of(args[0])).build(),
 *         KvWorld.of(Integer.parseInt(args[1])).main())) {
 *       ChildJvm.update(app);                     // announces the start and the end
 *     }
 *   }
 * }
 *
 * ChildJvm.Outcome outcome = ChildJvm.of(KvKillChild.class, state, 2)
 *     .runAndKill(Duration.ofMillis(150));      // SIGKILL 150 ms into its update
 * try (App app = App.create("kv", Environment.builder().dbPath(state).build(),
 *     KvWorld.of(2).main())) {
 *   app.update();                               // the next process
 *   assertThat(service.entries()).as("%s", outcome).isEqualTo(KvWorld.of(2).expected());
 *   assertThat(app.preview().changes()).isEmpty();
 * }
 * }</pre>
 *
 * <p>{@link KillTrials} repeats this at random moments. The child runs {@code java} of the test's
 * {@code java.home} with {@code -XX:TieredStopAtLevel=1} (it starts faster), {@code
 * -Dorg.slf4j.simpleLogger.defaultLogLevel=warn} (the engine's info lines of every run would
 * drown the test's output), then {@link #withJvmOptions}, the test's {@code java.class.path},
 * the class and its arguments. Its standard error is the test process's; the lines of its standard
 * output other than the announcements are copied to the test's standard output. Every wait is
 * bounded ({@link #withTimeouts}): a child that does not announce its start, or does not exit,
 * fails the test with an {@link AssertionError} naming the class and its arguments, and is
 * killed; no child outlives the call.
 */
public final class ChildJvm {
  /** The line {@link #announceStart()} prints. */
  static final String START = "[cocoindex-testkit] update started";
  /** The line {@link #announceDone()} prints. */
  static final String DONE = "[cocoindex-testkit] update done";

  private static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration DEFAULT_UPDATE_TIMEOUT = Duration.ofSeconds(120);

  private final Class<?> main;
  private final List<String> args;
  private final List<String> jvmOptions;
  private final Duration startTimeout;
  private final Duration updateTimeout;

  private ChildJvm(Class<?> main, List<String> args, List<String> jvmOptions,
      Duration startTimeout, Duration updateTimeout) {
    this.main = main;
    this.args = args;
    this.jvmOptions = jvmOptions;
    this.startTimeout = startTimeout;
    this.updateTimeout = updateTimeout;
  }

  /**
   * A child JVM that will run {@code main}'s {@code main(String[])} with {@code args}, each
   * passed as its {@code String.valueOf} (a {@link Path}, a seed, a generation). Nothing starts
   * until {@link #run()} or {@link #runAndKill}; each call starts a new JVM.
   *
   * @param main a class with a {@code public static void main(String[])} on the test's classpath
   *     that calls {@link #update(App)} (or {@link #announceStart()} and {@link #announceDone()})
   * @param args its arguments, none null
   * @return the child, not started
   */
  public static ChildJvm of(Class<?> main, Object... args) {
    Objects.requireNonNull(main, "main");
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      texts.add(String.valueOf(Objects.requireNonNull(args[i], "args[" + i + "]")));
    }
    return new ChildJvm(main, List.copyOf(texts), List.of(), DEFAULT_START_TIMEOUT,
        DEFAULT_UPDATE_TIMEOUT);
  }

  /**
   * This child with {@code options} added to its JVM's command line after the defaults (a
   * {@code -D} of them wins over a default one), e.g. {@code "-Xmx256m"}.
   *
   * @param options JVM options, none null
   * @return a new child; this one is unchanged
   */
  public ChildJvm withJvmOptions(String... options) {
    List<String> all = new ArrayList<>(jvmOptions);
    for (String o : options) {
      all.add(Objects.requireNonNull(o, "option"));
    }
    return new ChildJvm(main, args, List.copyOf(all), startTimeout, updateTimeout);
  }

  /**
   * This child with other bounds on its waits (by default 60 s and 120 s).
   *
   * @param toStart from its launch until it announces the start of its update
   * @param toExit from that announcement until the JVM has exited (after a kill, too)
   * @return a new child; this one is unchanged
   */
  public ChildJvm withTimeouts(Duration toStart, Duration toExit) {
    return new ChildJvm(main, args, jvmOptions, positive(toStart, "toStart"),
        positive(toExit, "toExit"));
  }

  private static Duration positive(Duration d, String name) {
    if (Objects.requireNonNull(d, name).isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, not " + d);
    }
    return d;
  }

  // ---- the child's side

  /**
   * In the child JVM: runs {@code app.update()} between {@link #announceStart()} and {@link
   * #announceDone()}, and returns its statistics. When the update throws, the end is not
   * announced and the exception propagates: let it out of {@code main}, and the test fails
   * naming the child (its stack trace is on the test's standard error).
   *
   * @param app the child's app, whose update the test may kill
   * @return the update's statistics
   */
  public static UpdateStats update(App app) {
    Objects.requireNonNull(app, "app");
    announceStart();
    UpdateStats stats = app.update();
    announceDone();
    return stats;
  }

  /**
   * In the child JVM: tells the test that the work it may kill starts now; a kill delay counts
   * from here. For a child that does more than one {@link App#update()}; others call {@link
   * #update(App)}.
   */
  public static void announceStart() {
    announce(START);
  }

  /** In the child JVM: tells the test that the work it may kill has returned. */
  public static void announceDone() {
    announce(DONE);
  }

  private static void announce(String line) {
    // println holds the stream's lock for the whole line: other threads' output cannot split it.
    System.out.println(line);
    System.out.flush();
  }

  // ---- the test's side

  /**
   * Runs the child until it exits by itself.
   *
   * @return how long its update took, from the announcement of its start to that of its end
   * @throws AssertionError when the child does not announce its start in time, does not exit in
   *     time, exits with a non-zero code (its update failed), or exits without announcing the end
   */
  public Completed run() {
    return (Completed) launch(null);
  }

  /**
   * Runs the child and kills it ({@code destroyForcibly}, SIGKILL) {@code afterStart} after it
   * announced the start of its update, unless it announced the end or exited before.
   *
   * @param afterStart when to kill it, counted from the announcement of its start; not negative
   * @return {@link Killed} when the kill came before the end of the update; {@link Completed}
   *     when the update announced its end first (a kill that lands while the JVM exits does not
   *     undo a completed update)
   * @throws AssertionError as for {@link #run()}
   */
  public Outcome runAndKill(Duration afterStart) {
    if (Objects.requireNonNull(afterStart, "afterStart").isNegative()) {
      throw new IllegalArgumentException("afterStart must not be negative, not " + afterStart);
    }
    return launch(afterStart);
  }

  private Outcome launch(Duration killAfter) {
    Process process;
    try {
      process = new ProcessBuilder(command())
          .redirectError(ProcessBuilder.Redirect.INHERIT)
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the child JVM " + this, e);
    }
    try {
      return watch(process, killAfter);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while watching the child JVM " + this, e);
    } finally {
      if (process.isAlive()) {
        process.destroyForcibly();
        try {
          process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private Outcome watch(Process process, Duration killAfter) throws InterruptedException {
    Announcements seen = new Announcements(process);
    long start;
    try {
      start = seen.start.get(startTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("the child JVM " + this + " did not announce the start of its"
          + " update within " + seconds(startTimeout) + " (its main must pass its app to"
          + " ChildJvm.update, or call ChildJvm.announceStart); killed");
    } catch (ExecutionException e) {
      throw new AssertionError("could not read the output of the child JVM " + this, e.getCause());
    }
    if (start < 0) {
      process.waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("the child JVM " + this + " " + exit(process)
          + " before announcing the start of its update (its main must pass its app to"
          + " ChildJvm.update, or call ChildJvm.announceStart)");
    }
    long killedAt = -1;
    if (killAfter != null) {
      long wait = start + killAfter.toNanos() - System.nanoTime();
      try {
        seen.end.get(Math.max(0, wait), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        process.destroyForcibly();
        killedAt = System.nanoTime();
      } catch (ExecutionException e) {
        throw new AssertionError("could not read the output of the child JVM " + this,
            e.getCause());
      }
    }
    long left = start + updateTimeout.toNanos() - System.nanoTime();
    if (!process.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
      throw new AssertionError("the child JVM " + this + " did not exit within "
          + seconds(updateTimeout) + " of the start of its update"
          + (killedAt >= 0 ? ", even after it was killed" : "") + "; killed");
    }
    seen.reader.join(TimeUnit.SECONDS.toMillis(10));
    long done = seen.done;
    if (killedAt >= 0) {
      return done >= 0 ? new Completed(Duration.ofNanos(done - start))
          : new Killed(Duration.ofNanos(killedAt - start));
    }
    if (done < 0) {
      throw new AssertionError("the child JVM " + this + " " + exit(process)
          + " without announcing the end of its update"
          + (process.exitValue() != 0 ? " (its update failed: see its standard error)" : ""));
    }
    if (process.exitValue() != 0) {
      throw new AssertionError("the child JVM " + this + " " + exit(process)
          + " after its update had returned (see its standard error)");
    }
    return new Completed(Duration.ofNanos(done - start));
  }

  private static String exit(Process process) {
    return process.isAlive() ? "closed its standard output"
        : "exited with code " + process.exitValue();
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  private List<String> command() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    return command;
  }

  /** E.g. {@code io.example.KvKillChild [/tmp/state, 2]}: how failures name the child. */
  @Override
  public String toString() {
    return main.getName() + " " + Arrays.toString(args.toArray());
  }

  /** Reads the child's standard output on a thread of its own, noting when each line came. */
  private static final class Announcements {
    /** Completes with the nanoTime of the start, or -1 when the output ended before it. */
    final CompletableFuture<Long> start = new CompletableFuture<>();
    /** Completes at the end of the update or of the output, whichever comes first. */
    final CompletableFuture<Void> end = new CompletableFuture<>();
    volatile long done = -1;
    final Thread reader;

    Announcements(Process process) {
      reader = new Thread(() -> read(process), "child-jvm-output");
      reader.setDaemon(true);
      reader.start();
    }

    private void read(Process process) {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          if (line.equals(START)) {
            start.complete(System.nanoTime());
          } else if (line.equals(DONE) && start.isDone()) {
            done = System.nanoTime();
            end.complete(null);
          } else {
            System.out.println(line);
          }
        }
      } catch (IOException e) {
        // The pipe broke because the child was killed: its output ends here.
      } finally {
        start.complete(-1L);
        end.complete(null);
      }
    }
  }

  /** How a child's update ended: {@link Completed} or {@link Killed}. */
  public sealed interface Outcome permits Completed, Killed {}

  /**
   * The child's update returned: it announced the end. Unless a {@link #runAndKill} came after
   * that announcement (while the JVM was exiting), the child then exited with code 0.
   *
   * @param update from the announcement of its start to that of its end
   */
  public record Completed(Duration update) implements Outcome {
    /** E.g. {@code completed its update in 812 ms}. */
    @Override
    public String toString() {
      return "completed its update in " + update.toMillis() + " ms";
    }
  }

  /**
   * The child was killed during its update (SIGKILL: no shutdown hook, no {@code finally} ran).
   *
   * @param afterStart from the announcement of its start to the kill
   */
  public record Killed(Duration afterStart) implements Outcome {
    /** E.g. {@code killed 130 ms into its update}. */
    @Override
    public String toString() {
      return "killed " + afterStart.toMillis() + " ms into its update";
    }
  }
}
