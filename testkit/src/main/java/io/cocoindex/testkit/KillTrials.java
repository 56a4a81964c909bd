package io.cocoindex.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.IntFunction;

/**
 * {@code kill -9} at random moments of an update: a series of {@link ChildJvm} runs, each killed
 * at a random time between the start of its update and 1.2 times the length of a full run (so
 * some trials complete), from one seed that is printed and can be replayed.
 *
 * <p>{@link #calibrate} first runs a child to completion to learn how long an update takes;
 * each {@link #kill} then runs the next child and kills it at a random moment of that window. A
 * trial that completes measures the window anew (the world may have grown or shrunk). After each
 * trial the test runs a clean update in its own JVM and checks convergence; its own random
 * choices (which generation of its world to declare next, say) come from {@link #random()}, so
 * the seed replays them too.
 *
 * <p>{@link #runGenerations} is the usual series, for a world that changes from one generation
 * to the next (files added and removed, a schema that moves): the child of each generation is
 * killed, and a clean update on the same or the next generation must converge.
 *
 * <pre>{@code
 * @Test
 * void everyKilledRunConvergesOnTheNextRun() throws Exception {
 *   KillTrials trials = KillTrials.fromSystemProperties("kv.kill", 8);  // -Dkv.kill.seed=S replays
 *   trials.runGenerations(
 *       generation -> ChildJvm.of(KvKillChild.class, state, trials.seed(), generation),
 *       generation -> convergenceProblems(state, generation));  // a clean update here, then
 *                                                               // every difference, or none
 * }
 * }</pre>
 *
 * <p>{@link #calibrate}, {@link #kill} and {@link #random()} build other series.
 *
 * <p>One test's: not safe for concurrent use.
 */
public final class KillTrials {
  /**
   * The shortest window kills are drawn from: a run with little to do must not shrink it to
   * nothing, which would kill every later trial at its very start.
   */
  static final Duration MIN_WINDOW = Duration.ofMillis(50);

  private final String propertyPrefix;
  private final int count;
  private final long seed;
  private final Random random;
  private Duration fullRun;
  private int trials;
  private int killed;

  private KillTrials(String propertyPrefix, int count, long seed) {
    this.propertyPrefix = Objects.requireNonNull(propertyPrefix, "propertyPrefix");
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative, not " + count);
    }
    this.count = count;
    this.seed = seed;
    this.random = new Random(seed);
  }

  /**
   * Trials whose number and seed come from the system properties {@code <prefix>.trials}
   * (default {@code defaultCount}) and {@code <prefix>.seed} (default a new one), e.g. {@code
   * mvn test -Dkv.kill.trials=50} or {@code -Dkv.kill.seed=123} to replay a failure. Prints the
   * seed to standard output at once, so a test that hangs or crashes still tells it.
   *
   * @param propertyPrefix names the properties, e.g. {@code "kv.kill"}
   * @param defaultCount the number of trials without {@code <prefix>.trials}
   * @return trials not calibrated yet
   */
  public static KillTrials fromSystemProperties(String propertyPrefix, int defaultCount) {
    Objects.requireNonNull(propertyPrefix, "propertyPrefix");
    KillTrials trials = new KillTrials(propertyPrefix,
        Integer.getInteger(propertyPrefix + ".trials", defaultCount),
        Long.getLong(propertyPrefix + ".seed", System.nanoTime()));
    System.out.println(trials + ", " + trials.count + " trials");
    return trials;
  }

  /**
   * Trials with a fixed seed and number, e.g. to keep a seed that once found a bug as a
   * regression test. Kill times are the seed's fractions of the measured window, so a replay
   * kills at the same moments only as far as the runs take as long as they did.
   *
   * @param propertyPrefix how {@link #toString()} names them (and the property that would replay
   *     them through {@link #fromSystemProperties})
   * @param count the number of trials, {@link #count()}
   * @param seed the seed of the kill times and of {@link #random()}
   * @return trials not calibrated yet
   */
  public static KillTrials seeded(String propertyPrefix, int count, long seed) {
    return new KillTrials(propertyPrefix, count, seed);
  }

  /**
   * The seed of the kill times and of {@link #random()}.
   *
   * @return the seed, the one to replay these trials with
   */
  public long seed() {
    return seed;
  }

  /**
   * How many {@link #kill} trials the test is to run.
   *
   * @return the number of trials
   */
  public int count() {
    return count;
  }

  /**
   * The generator of the kill times, for the test's own random choices between trials: drawn in
   * the same order, they replay with the seed.
   *
   * @return the generator, seeded with {@link #seed()}
   */
  public Random random() {
    return random;
  }

  /**
   * Runs {@code child} to completion and takes its update's length as the window of the next
   * kills. Call it before the first {@link #kill}; it may be called again.
   *
   * @param child a child that runs one update
   * @return how long its update took
   * @throws AssertionError as {@link ChildJvm#run()} does
   */
  public ChildJvm.Completed calibrate(ChildJvm child) {
    ChildJvm.Completed completed = Objects.requireNonNull(child, "child").run();
    measured(completed.update());
    return completed;
  }

  /**
   * The next trial: runs {@code child} and kills it at a random moment between the start of its
   * update and 1.2 times the last full run's length (at least 50 ms); a trial that completes
   * becomes the new full run.
   *
   * @param child the child of this trial, e.g. on the next generation of the test's world
   * @return the trial: its number, when the kill was due, and whether it came first
   * @throws IllegalStateException before {@link #calibrate}
   * @throws AssertionError as {@link ChildJvm#runAndKill} does
   */
  public Trial kill(ChildJvm child) {
    Objects.requireNonNull(child, "child");
    if (fullRun == null) {
      throw new IllegalStateException("calibrate(child) first: kill times are drawn from the"
          + " length of a full run");
    }
    Duration killAfter = Duration.ofNanos((long) (random.nextDouble() * fullRun.toNanos() * 1.2));
    ChildJvm.Outcome outcome = child.runAndKill(killAfter);
    trials++;
    if (outcome instanceof ChildJvm.Completed completed) {
      measured(completed.update());
    } else {
      killed++;
    }
    return new Trial(trials, killAfter, outcome);
  }

  /**
   * What differs, after a clean update in the test's JVM, from what a generation of the test's
   * world declares.
   */
  @FunctionalInterface
  public interface ConvergenceCheck {
    /**
     * Runs a clean update of {@code generation} in the test's JVM on the state the killed child
     * left, then reads the external system.
     *
     * @param generation the generation the clean update declares
     * @return every difference from what it declares (a file left over, a row missing, a
     *     preview that still plans something), each a line of the failure; empty when converged
     * @throws Exception when the clean update or the reading fails: the test fails with it
     */
    List<String> problems(int generation) throws Exception;
  }

  /**
   * The usual series: runs the child of generation 0 to completion ({@link #calibrate}) and
   * checks it converged; then, {@link #count()} times, kills the child of the next generation
   * ({@link #kill}) and checks that a clean update on that generation or, as {@link #random()}
   * picks, the one after it converges, continuing from the generation checked. Each trial is
   * printed; the {@link #summary()} is printed at the end.
   *
   * @param childAt the child JVM that updates the test's world to a generation
   * @param check the clean update of a generation and its differences
   * @throws AssertionError at the first check with a difference, naming the seed (how to replay
   *     it), the trial, the generations and every difference; or as {@link ChildJvm#run()} does
   * @throws Exception what {@code check} throws
   */
  public void runGenerations(IntFunction<ChildJvm> childAt, ConvergenceCheck check)
      throws Exception {
    Objects.requireNonNull(childAt, "childAt");
    Objects.requireNonNull(check, "check");
    int generation = 0;
    calibrate(childAt.apply(generation));
    converged(check, generation, "the first run, on generation 0");
    for (int t = 0; t < count; t++) {
      generation++;
      Trial trial = kill(childAt.apply(generation));
      int clean = random.nextBoolean() ? generation : generation + 1;
      String what = trial + ", on generation " + generation + "; clean run on generation "
          + clean;
      System.out.println(propertyPrefix + ": " + what);
      converged(check, clean, what);
      generation = clean;
    }
    System.out.println(summary());
  }

  private void converged(ConvergenceCheck check, int generation, String what) throws Exception {
    List<String> problems = check.problems(generation);
    if (!problems.isEmpty()) {
      throw new AssertionError(this + ", " + what + ": did not converge, " + problems.size()
          + (problems.size() == 1 ? " difference:\n  " : " differences:\n  ")
          + String.join("\n  ", problems));
    }
  }

  private void measured(Duration update) {
    fullRun = update.compareTo(MIN_WINDOW) < 0 ? MIN_WINDOW : update;
  }

  /**
   * E.g. {@code kv.kill: seed 123, 5/8 trials killed (replay with -Dkv.kill.seed=123)}, once the
   * trials are over.
   *
   * @return the line to print after the trials, with the command that replays them
   */
  public String summary() {
    return propertyPrefix + ": seed " + seed + ", " + killed + "/" + trials + " trials killed"
        + " (replay with -D" + propertyPrefix + ".seed=" + seed + ")";
  }

  /** E.g. {@code kv.kill seed 123 (replay with -Dkv.kill.seed=123)}: for assertion messages. */
  @Override
  public String toString() {
    return propertyPrefix + " seed " + seed + " (replay with -D" + propertyPrefix + ".seed="
        + seed + ")";
  }

  /**
   * One killed (or completed) run.
   *
   * @param number from 1
   * @param killAfter when the kill was due, after the start of the update
   * @param outcome whether the kill came first, and when
   */
  public record Trial(int number, Duration killAfter, ChildJvm.Outcome outcome) {
    /** E.g. {@code trial 3, kill due at 128 ms: killed 130 ms into its update}. */
    @Override
    public String toString() {
      return "trial " + number + ", kill due at " + killAfter.toMillis() + " ms: " + outcome;
    }
  }
}
