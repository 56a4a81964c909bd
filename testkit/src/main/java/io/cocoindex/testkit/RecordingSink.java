package io.cocoindex.testkit;

import io.cocoindex.ActionApplier;
import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A sink that records every applied action as {@code "<verb> <description>"} and fails on
 * command: the Nth call, or any batch with an action matching a predicate (a key, say).
 *
 * <pre>{@code
 * RecordingSink<RowAction> rows = RecordingSink.create(a -> a.key() + "=" + a.value());
 * var handler = new RowHandler(rows.sink());
 * rows.failWhen(a -> a.key().equals("r2"));   // scripted failure
 * ...
 * assertThat(rows.take()).containsExactly("create r1=v1");
 * }</pre>
 *
 * <p>A container's handler builds its own sink, around its generated child-handler factory
 * ({@code TargetActionSink.withChildHandler(apply, new FolderHandler_ChildHandlerFactory(this))}),
 * so let it take the I/O as an {@link ActionApplier} and give it {@link #applier()} in tests:
 *
 * <pre>{@code
 * RecordingSink<FolderAction> folders = RecordingSink.create(FolderAction::name);
 * RecordingSink<NoteAction> notes = RecordingSink.create(a -> a.folder() + "/" + a.title());
 * var handler = new FolderHandler(folders.applier(), notes.applier());
 * }</pre>
 *
 * <p>{@code FolderConnectorTest} in this module's tests is the whole example.
 *
 * @param <A> the action type
 */
public final class RecordingSink<A> {
  private final Function<A, String> describe;
  private final List<String> log = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger calls = new AtomicInteger();
  private volatile int failOnCall = -1;
  /** What {@link #failOnCall} was asked, for the message. */
  private volatile int failOnCallAsked;
  /** The actions of the call {@link #failOnCall} failed: the engine's retries of them fail too. */
  private final Set<TargetAction<A>> failedActions =
      Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
  private volatile Predicate<A> failWhen = a -> false;
  private final TargetActionSink<A> sink;
  /** The real I/O the recorded actions are passed on to, or null. */
  private final ActionApplier<A> target;

  private RecordingSink(Function<A, String> describe, ActionApplier<A> target,
      ChildHandlerFactory<A> children) {
    this.describe = Objects.requireNonNull(describe, "describe");
    this.target = target;
    this.sink = children == null
        ? TargetActionSink.of(this::apply)
        : TargetActionSink.withChildHandler(this::apply, children);
  }

  /**
   * A leaf sink describing each action with {@code describe}.
   *
   * @param describe describes an action value for the log, e.g. {@code a -> a.key() + "=" +
   *     a.value()}
   * @param <A> the action type
   * @return a new recording sink with no scripted failure
   */
  public static <A> RecordingSink<A> create(Function<A, String> describe) {
    return new RecordingSink<>(describe, null, null);
  }

  /**
   * A sink that passes each call on to {@code target} (the connector's real I/O, or a fake
   * service of the test) and records its actions once it returned: the test checks both what
   * was sent and what the service holds, e.g. after a crash ({@link
   * CocoIndexExtension#updateCrashing}). A scripted failure fails the call before {@code target}
   * sees it; a call {@code target} fails is not recorded, and its exception is the call's.
   *
   * @param describe describes an action value for the log, e.g. {@code a -> a.key() + "=" +
   *     a.value()}
   * @param target the I/O each call is passed on to
   * @param <A> the action type
   * @return a new recording sink with no scripted failure
   */
  public static <A> RecordingSink<A> create(Function<A, String> describe, ActionApplier<A> target) {
    return new RecordingSink<>(describe, Objects.requireNonNull(target, "target"), null);
  }

  /**
   * A container sink whose child handlers come from {@code children}, for a handler that takes
   * its whole sink. The factory is called only while a run applies or previews, so it may refer
   * to a handler built after this sink. A handler that builds its sink around its generated
   * factory takes {@link #applier()} instead.
   *
   * @param describe describes an action value for the log, e.g. {@code a -> a.key() + "=" +
   *     a.value()}
   * @param children builds the handler of a created or updated container's children
   * @param <A> the container's action type
   * @return a new recording container sink with no scripted failure
   */
  public static <A> RecordingSink<A> container(
      Function<A, String> describe, ChildHandlerFactory<A> children) {
    return new RecordingSink<>(describe, null, Objects.requireNonNull(children, "children"));
  }

  /**
   * The sink to hand to a handler: one identity, so its actions are batched together.
   *
   * @return the same sink on every call
   */
  public TargetActionSink<A> sink() {
    return sink;
  }

  /**
   * The recording, failing apply function itself, for a handler that builds its own sink (a
   * container's, with {@code TargetActionSink.withChildHandler(applier, factory)}): calls
   * through it are recorded and fail as scripted exactly like calls of {@link #sink()}.
   *
   * @return an applier recording into this sink
   */
  public ActionApplier<A> applier() {
    return this::apply;
  }

  /**
   * Fails the {@code n}th call from now (1 = the next one), and the engine's retries of that
   * call's actions, then no more.
   *
   * <p>The engine merges the actions that components submit to one sink while it is busy into
   * one call, and retries a failed merged call split by component (halves, recursively). A
   * failure of that call alone would be absorbed by the retries; so every retry holding one of
   * the failed call's actions fails too: each component with an action in the {@code n}th call
   * fails in that run, whichever way its actions were batched, and the run throws {@code
   * UpdateFailedException}. Components whose actions went in other calls commit. Which
   * components share a call depends on timing: to fail one chosen component, use {@link
   * #failWhen}. The next run's actions are new, so it is not failed again.
   *
   * @param n which call from now, from 1
   * @return this sink, for chaining
   * @throws IllegalArgumentException when {@code n} is below 1
   */
  public RecordingSink<A> failOnCall(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be at least 1 (the next call), not " + n);
    }
    failedActions.clear();
    failOnCallAsked = n;
    failOnCall = calls.get() + n;
    return this;
  }

  /**
   * Fails every batch containing an action matching {@code predicate}, until reset.
   *
   * @param predicate tests each action value of a batch; replaces any earlier one
   * @return this sink, for chaining
   */
  public RecordingSink<A> failWhen(Predicate<A> predicate) {
    failWhen = Objects.requireNonNull(predicate, "predicate");
    return this;
  }

  /**
   * Stops every scripted failure.
   *
   * @return this sink, for chaining
   */
  public RecordingSink<A> heal() {
    failOnCall = -1;
    failedActions.clear();
    failWhen = a -> false;
    return this;
  }

  /**
   * Number of calls so far (failed ones included).
   *
   * @return how many batches the engine passed to this sink
   */
  public int calls() {
    return calls.get();
  }

  /**
   * Everything recorded so far, in apply order.
   *
   * @return a copy of the log, one {@code "<verb> <description>"} per applied action
   */
  public List<String> log() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }

  /**
   * Everything recorded so far, sorted (batches of concurrent components interleave), and clears.
   *
   * @return the log since the last {@code take}, sorted
   */
  public List<String> take() {
    synchronized (log) {
      List<String> out = new ArrayList<>(log);
      log.clear();
      Collections.sort(out);
      return out;
    }
  }

  private void apply(List<TargetAction<A>> actions) throws Exception {
    int call = calls.incrementAndGet();
    if (call == failOnCall) {
      failedActions.addAll(actions);
      throw failureOfCall();
    }
    // A retry passes the very action instances of the failed call; a later run makes new ones.
    if (!failedActions.isEmpty() && actions.stream().anyMatch(failedActions::contains)) {
      throw failureOfCall();
    }
    for (TargetAction<A> a : actions) {
      if (failWhen.test(a.value())) {
        throw new ScriptedFailure("scripted failure on " + describe.apply(a.value()));
      }
    }
    if (target != null) {
      target.apply(actions);
    }
    for (TargetAction<A> a : actions) {
      log.add(a.verb() + " " + describe.apply(a.value()));
    }
  }

  private ScriptedFailure failureOfCall() {
    int n = failOnCallAsked;
    return new ScriptedFailure("scripted failure of failOnCall(" + n + "): the " + ordinal(n)
        + " call after it was set");
  }

  private static String ordinal(int n) {
    int mod100 = n % 100;
    String suffix = mod100 >= 11 && mod100 <= 13 ? "th"
        : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    return n + suffix;
  }

  /** The failure a {@link RecordingSink} was told to produce. */
  public static final class ScriptedFailure extends RuntimeException {
    ScriptedFailure(String message) {
      super(message);
    }
  }
}
