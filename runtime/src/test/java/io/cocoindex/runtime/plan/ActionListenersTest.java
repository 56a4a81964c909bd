package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.runtime.ActionListener;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the log says of listeners that throw: a listener's first failure in a run with its stack
 * trace, and at the run's end a count for each listener that failed more than once; every
 * listener told of every action all the same.
 */
class ActionListenersTest {
  /** A listener that throws on the actions whose key is one of {@code failOn}. */
  record Failing(String name, List<String> failOn, List<String> told) implements ActionListener {
    @Override
    public void applied(String provider, StableKey key, TargetAction<?> action) {
      String k = ((StableKey.Str) key).value();
      told.add(k);
      if (failOn.contains(k)) {
        throw new IllegalStateException(name + " cannot record " + k);
      }
    }

    @Override
    public String toString() {
      return name;
    }
  }

  @Test
  void aListenerThatFailedMoreThanOnceIsCountedAtTheRunsEnd() {
    Failing often = new Failing("often", List.of("a", "b", "c"), new ArrayList<>());
    Failing once = new Failing("once", List.of("b"), new ArrayList<>());
    Failing never = new Failing("never", List.of(), new ArrayList<>());
    ActionListeners listeners = new ActionListeners("app", List.of(often, once, never));

    List<String> log = capturingErr(() -> {
      for (String k : List.of("a", "b", "c", "d")) {
        listeners.tell("rows", StableKey.of(k), TargetAction.create(k));
      }
      listeners.reportFailures();
    });

    assertThat(often.told()).containsExactly("a", "b", "c", "d");
    assertThat(once.told()).containsExactly("a", "b", "c", "d");
    assertThat(never.told()).containsExactly("a", "b", "c", "d");
    assertThat(log).filteredOn(line -> line.contains(" WARN "))
        .extracting(line -> line.substring(line.indexOf("WARN"))).containsExactly(
        "WARN io.cocoindex.runtime.plan.ActionListeners - app 'app': action listener often threw"
            + " on the create of \"a\" in provider 'rows'; the action stands applied and"
            + " committed, and the listener is still told of the others (its further failures"
            + " in this run are counted at the run's end)",
        "WARN io.cocoindex.runtime.plan.ActionListeners - app 'app': action listener once threw"
            + " on the create of \"b\" in provider 'rows'; the action stands applied and"
            + " committed, and the listener is still told of the others (its further failures"
            + " in this run are counted at the run's end)",
        "WARN io.cocoindex.runtime.plan.ActionListeners - app 'app': action listener often threw"
            + " on 3 actions of this run (the first logged before)");
    assertThat(log).as("a stack trace per first failure, none for the count")
        .filteredOn(line -> line.startsWith("java.lang.IllegalStateException")).containsExactly(
            "java.lang.IllegalStateException: often cannot record a",
            "java.lang.IllegalStateException: once cannot record b");
  }

  /** The lines {@code run} writes to the standard error stream, where the log goes. */
  private static List<String> capturingErr(Runnable run) {
    PrintStream err = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      run.run();
    } finally {
      System.setErr(err);
    }
    return Arrays.asList(bytes.toString(StandardCharsets.UTF_8).split("\\R"));
  }
}
