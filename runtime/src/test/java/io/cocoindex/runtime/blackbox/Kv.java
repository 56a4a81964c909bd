package io.cocoindex.runtime.blackbox;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Predicate;

/**
 * An in-memory key-value external system with a handler whose tracking record is the value.
 * The sink is all-or-nothing per call (checks every action before applying any), scripted to
 * fail by predicate. {@link #external} is what the "real" system holds, keyed by the key's
 * printed form.
 */
final class Kv {
  record Op(String key, String value) {}

  final Map<String, String> external = new ConcurrentSkipListMap<>();
  final List<String> log = Collections.synchronizedList(new ArrayList<>());
  volatile Predicate<TargetAction<Op>> failWhen = a -> false;
  /** Like a UNIQUE constraint: a create or update fails while another key holds its value. */
  volatile boolean uniqueValues;
  final TargetActionSink<Op> sink = TargetActionSink.of(this::apply);
  final Handler handler = new Handler();

  private void apply(List<TargetAction<Op>> actions) {
    for (TargetAction<Op> a : actions) {
      if (failWhen.test(a)) {
        throw new IllegalStateException("scripted failure on " + a.verb() + " " + a.value().key());
      }
      Op op = a.value();
      if (uniqueValues && !(a instanceof TargetAction.Delete<Op>)) {
        for (Map.Entry<String, String> e : external.entrySet()) {
          if (!e.getKey().equals(op.key()) && e.getValue().equals(op.value())) {
            throw new IllegalStateException("unique constraint: value " + op.value() + " of "
                + op.key() + " is held by " + e.getKey());
          }
        }
      }
    }
    for (TargetAction<Op> a : actions) {
      Op op = a.value();
      if (a instanceof TargetAction.Delete<Op>) {
        external.remove(op.key());
        log.add("delete " + op.key());
      } else {
        external.put(op.key(), op.value());
        log.add(a.verb() + " " + op.key() + "=" + op.value());
      }
    }
  }

  List<String> take() {
    synchronized (log) {
      List<String> out = new ArrayList<>(log);
      Collections.sort(out);
      log.clear();
      return out;
    }
  }

  Map<String, String> snapshot() {
    return new TreeMap<>(external);
  }

  static String text(StableKey key) {
    return key instanceof StableKey.Str s ? s.value() : key.toString();
  }

  final class Handler implements TargetHandler<String, String, Op> {
    @Override
    public TargetReconcileOutput<Op, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean mayBeMissing) {
      DiffAction d = StateDiff.diff(new TrackingRecordTransition<>(desired, prev, mayBeMissing));
      if (d == null) {
        return null;
      }
      String k = text(key);
      return switch (d) {
        case DELETE -> TargetReconcileOutput.of(TargetAction.delete(new Op(k, null)), sink, null);
        case INSERT ->
            TargetReconcileOutput.of(TargetAction.create(new Op(k, desired)), sink, desired);
        default -> TargetReconcileOutput.of(TargetAction.update(new Op(k, desired)), sink, desired);
      };
    }
  }
}
