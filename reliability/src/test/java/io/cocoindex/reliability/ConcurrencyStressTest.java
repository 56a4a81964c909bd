package io.cocoindex.reliability;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.ComponentFailure;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 10,000 components on every core, each declaring {@value #PER_COMPONENT} states into one shared
 * sink with random latency; in the middle run about 1% of the components are poisoned (any
 * batch holding one of their actions fails). No deadlock (bounded by @Timeout), exactly the
 * poisoned components fail, no update is lost, and every sink call holds either all of a
 * component's actions or none: a submission is never split.
 */
class ConcurrencyStressTest {
  static final int COMPONENTS = 10_000;
  static final int PER_COMPONENT = 2;

  @TempDir Path dir;

  record Put(String key, String value) {}

  final Map<String, String> external = new ConcurrentHashMap<>();
  final AtomicInteger sinkCalls = new AtomicInteger();
  final AtomicInteger maxConcurrent = new AtomicInteger();
  final AtomicInteger concurrent = new AtomicInteger();
  final AtomicLong splitViolations = new AtomicLong();
  final List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
  volatile Set<Integer> poisoned = Set.of();
  volatile int expectedPerComponent = PER_COMPONENT;

  static int componentOf(String key) {
    return Integer.parseInt(key.substring(1, key.indexOf('-')));
  }

  final TargetActionSink<Put> sink = TargetActionSink.of(actions -> {
    sinkCalls.incrementAndGet();
    int now = concurrent.incrementAndGet();
    maxConcurrent.accumulateAndGet(now, Math::max);
    try {
      Map<Integer, Integer> perComponent = new HashMap<>();
      for (TargetAction<Put> a : actions) {
        perComponent.merge(componentOf(a.value().key()), 1, Integer::sum);
      }
      perComponent.forEach((c, n) -> {
        if (n != expectedPerComponent) {
          splitViolations.incrementAndGet();
          violations.add("component " + c + " had " + n + " of its " + expectedPerComponent
              + " actions in one sink call");
        }
      });
      Thread.sleep(ThreadLocalRandom.current().nextInt(4));
      for (Integer c : perComponent.keySet()) {
        if (poisoned.contains(c)) {
          throw new IllegalStateException("poisoned component c" + c);
        }
      }
      for (TargetAction<Put> a : actions) {
        if (a.value().value() == null) {
          external.remove(a.value().key());
        } else {
          external.put(a.value().key(), a.value().value());
        }
      }
    } finally {
      concurrent.decrementAndGet();
    }
  });

  final class Handler implements TargetHandler<String, String, Put> {
    @Override
    public TargetReconcileOutput<Put, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mbm) {
      String k = ((StableKey.Str) key).value();
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(new Put(k, null)), sink, null);
      }
      if (!mbm && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      return TargetReconcileOutput.of(prev.isEmpty() ? TargetAction.create(new Put(k, desired))
          : TargetAction.update(new Put(k, desired)), sink, desired);
    }
  }

  @Test
  @Timeout(240)
  void tenThousandComponentsNeverSplitNeverLoseAnUpdateAndNeverDeadlock() {
    int[] round = {0};
    try (App app = App.create("stress", Environment.builder().dbPath(dir).build(), ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "kv", new Handler());
      for (int c = 0; c < COMPONENTS; c++) {
        int comp = c;
        ctx.mount("c" + c, cc -> {
          for (int i = 0; i < PER_COMPONENT; i++) {
            String key = "c" + comp + "-" + i;
            declareTargetState(cc, p.targetState(key, "r" + round[0] + "/" + key));
          }
        });
      }
    })) {
      app.update();
      assertThat(external).hasSize(COMPONENTS * PER_COMPONENT);

      round[0] = 1;
      Set<Integer> poison = new TreeSet<>();
      ThreadLocalRandom rnd = ThreadLocalRandom.current();
      while (poison.size() < COMPONENTS / 100) {
        poison.add(rnd.nextInt(COMPONENTS));
      }
      poisoned = poison;
      UpdateFailedException failed = null;
      try {
        app.update();
      } catch (UpdateFailedException e) {
        failed = e;
      }
      assertThat(failed).as("the poisoned run fails").isNotNull();
      Set<Integer> failedComponents = new TreeSet<>();
      for (ComponentFailure f : failed.failures()) {
        failedComponents.add(Integer.parseInt(f.component().replaceAll("[^0-9]", "")));
      }
      assertThat(failedComponents).as("exactly the poisoned components fail").isEqualTo(poison);
      for (int c = 0; c < COMPONENTS; c++) {
        for (int i = 0; i < PER_COMPONENT; i++) {
          String key = "c" + c + "-" + i;
          String want = (poison.contains(c) ? "r0/" : "r1/") + key;
          if (!want.equals(external.get(key))) {
            violations.add("after the poisoned run " + key + "=" + external.get(key)
                + ", expected " + want);
          }
        }
      }
      assertThat(app.status().unsettled()).hasSize(poison.size() * PER_COMPONENT);

      poisoned = Set.of();
      app.update(); // the failed components are retried; nothing else changes
      for (int c = 0; c < COMPONENTS; c++) {
        for (int i = 0; i < PER_COMPONENT; i++) {
          String key = "c" + c + "-" + i;
          if (!("r1/" + key).equals(external.get(key))) {
            violations.add("after the clean run " + key + "=" + external.get(key));
          }
        }
      }
      assertThat(app.status().unsettled()).isEmpty();
      assertThat(app.preview().hasChanges()).isFalse();
    }
    System.out.println("stress: " + sinkCalls.get() + " sink calls, up to " + maxConcurrent.get()
        + " at once, " + splitViolations.get() + " split submissions");
    assertThat(violations).as("lost updates or split submissions").isEmpty();
  }
}
