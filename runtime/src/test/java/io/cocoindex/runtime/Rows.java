package io.cocoindex.runtime;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A flat row target for engine tests: the tracking record is the row value, the sink records
 * {@code "create a=v1"}-style entries, and failures can be scripted.
 */
final class Rows {
  /** One row mutation; {@code value == null} is a delete. */
  record RowAction(String key, String value) {}

  /** One reconcile call as the handler saw it. */
  record Call(String key, String desired, List<String> prev, boolean mayBeMissing) {
    @Override
    public String toString() {
      return key + " desired=" + desired + " prev=" + prev + " mbm=" + mayBeMissing;
    }
  }

  final List<String> log = Collections.synchronizedList(new ArrayList<>());
  final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
  final AtomicInteger sinkCalls = new AtomicInteger();
  /** The most actions one sink call received. */
  final AtomicInteger largestBatch = new AtomicInteger();
  volatile Predicate<RowAction> failWhen = a -> false;
  /** The exceptions the sink threw, each the object itself (failures must hand it on as is). */
  final List<Throwable> thrown = Collections.synchronizedList(new ArrayList<>());
  volatile long sinkDelayMillis;
  /** Runs at the start of each sink call, on the sink's thread. */
  volatile Runnable onSinkCall = () -> {};
  final TargetActionSink<RowAction> sink = TargetActionSink.of(this::apply);
  final Handler handler = new Handler();

  private void apply(List<TargetAction<RowAction>> actions) throws Exception {
    sinkCalls.incrementAndGet();
    largestBatch.accumulateAndGet(actions.size(), Math::max);
    onSinkCall.run();
    if (sinkDelayMillis > 0) {
      Thread.sleep(sinkDelayMillis);
    }
    for (TargetAction<RowAction> a : actions) {
      if (failWhen.test(a.value())) {
        IllegalStateException e =
            new IllegalStateException("scripted sink failure on " + a.value().key());
        thrown.add(e);
        throw e;
      }
    }
    for (TargetAction<RowAction> a : actions) {
      RowAction r = a.value();
      log.add(a.verb() + " " + r.key() + (r.value() == null ? "" : "=" + r.value()));
    }
  }

  static String keyText(StableKey key) {
    return key instanceof StableKey.Str s ? s.value() : key.toString();
  }

  List<String> takeLog() {
    synchronized (log) {
      List<String> out = new ArrayList<>(log);
      Collections.sort(out);
      log.clear();
      return out;
    }
  }

  List<Call> takeCalls() {
    synchronized (calls) {
      List<Call> out = new ArrayList<>(calls);
      out.sort((a, b) -> a.key().compareTo(b.key()));
      calls.clear();
      return out;
    }
  }

  /** The row handler: full CRUD with no-change detection, the tracking record is the value. */
  final class Handler implements TargetHandler<String, String, RowAction> {
    @Override
    public TargetReconcileOutput<RowAction, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      calls.add(new Call(keyText(key), desired, prev, mayBeMissing));
      return reconcileRow(key, desired, prev, mayBeMissing, sink);
    }
  }

  /**
   * A row's reconcile onto {@code sink}: full CRUD with no-change detection, the tracking record
   * the value.
   */
  static TargetReconcileOutput<RowAction, String> reconcileRow(StableKey key, String desired,
      List<String> prev, boolean mayBeMissing, TargetActionSink<RowAction> sink) {
    String k = keyText(key);
    if (desired == null) {
      if (prev.isEmpty() && !mayBeMissing) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.delete(new RowAction(k, null)), sink, null);
    }
    if (!mayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    RowAction row = new RowAction(k, desired);
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(row) : TargetAction.update(row), sink, desired);
  }
}
