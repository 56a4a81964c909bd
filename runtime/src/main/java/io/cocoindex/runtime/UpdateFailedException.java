package io.cocoindex.runtime;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Some components failed in a run, or its end-of-run deletions were refused ({@link
 * DeletionLimitExceededException}, as the failure of {@code /}). The healthy components were
 * committed; a failed one keeps the possible records of what it declared, so the next run
 * retries it (what it no longer declares is deleted all the same when only its apply or commit
 * failed).
 *
 * <p>The message gives each failed component with {@link ComponentFailure#message}: for a sink
 * that threw, which provider's sink it was and what it was applying for that component, then the
 * sink's message ({@code /"a.md": the sink of provider 'rows' failed applying 3 actions (update
 * "k1", "k2"; delete "k3"): disk full}). The errors are the components' own, as thrown: a sink's
 * exception is the cause (or a suppressed one), the object the sink threw.
 */
public final class UpdateFailedException extends RuntimeException {
  /** The components that failed, in the order met. */
  private final List<ComponentFailure> failures;
  /** What the run did for the healthy components. */
  private final UpdateStats stats;

  /**
   * A failure of the run {@code what}; the first component's error is its cause, the errors of
   * the next nine are suppressed by it, each error once (one that parents' bodies let through
   * fails each of them with the same error).
   *
   * @param what the run that failed, for the message ({@code "update of app 'docs'"})
   * @param failures the components that failed, in the order met
   * @param stats what the run did for the healthy components
   */
  public UpdateFailedException(String what, List<ComponentFailure> failures, UpdateStats stats) {
    super(message(what, failures), failures.isEmpty() ? null : failures.get(0).error());
    this.failures = List.copyOf(failures);
    this.stats = stats;
    Set<Throwable> attached = Collections.newSetFromMap(new IdentityHashMap<>());
    if (!failures.isEmpty()) {
      attached.add(failures.get(0).error());
    }
    for (int i = 1; i < failures.size() && i < 10; i++) {
      Throwable error = failures.get(i).error();
      if (attached.add(error)) { // a let-through error is the cause or suppressed once
        addSuppressed(error);
      }
    }
  }

  private static String message(String what, List<ComponentFailure> failures) {
    long refused = failures.stream()
        .filter(f -> f.error() instanceof DeletionLimitExceededException).count();
    long failed = failures.size() - refused;
    StringBuilder sb = new StringBuilder(what).append(": ");
    if (failed > 0) {
      sb.append(failed).append(failed == 1 ? " component failed" : " components failed");
    }
    if (refused > 0) {
      sb.append(failed > 0 ? "; " : "").append("its end-of-run deletions were refused");
    }
    // A foreground child's error that its parent's body let through fails the parent with the
    // same error, and so on up: its message is given once, with the deepest of them, where it
    // came from.
    Map<Throwable, String> origin = new IdentityHashMap<>();
    for (ComponentFailure f : failures) {
      origin.merge(f.error(), f.component(), (a, b) -> b.length() > a.length() ? b : a);
    }
    int shown = 0;
    for (ComponentFailure f : failures) {
      if (shown++ == 5) {
        sb.append("\n  ...");
        break;
      }
      String from = origin.get(f.error());
      sb.append("\n  ").append(f.component()).append(": ").append(below(from, f.component())
          ? "the error of " + from + ", which its body let through"
          : f.message());
    }
    return sb.toString();
  }

  /** Whether the component printed {@code path} is below the one printed {@code ancestor}. */
  private static boolean below(String path, String ancestor) {
    return !path.equals(ancestor)
        && path.startsWith(ancestor.equals("/") ? "/" : ancestor + "/");
  }

  /**
   * The components that failed, each with its error.
   *
   * @return the failures, in the order met; a refused deletion is the failure of {@code /}
   */
  public List<ComponentFailure> failures() {
    return failures;
  }

  /**
   * What the run did for the healthy components.
   *
   * @return the statistics of what the run applied and committed
   */
  public UpdateStats stats() {
    return stats;
  }
}
