package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.runtime.ActionListener;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The app's {@link ActionListener}s, as a run tells them of the actions it committed. A listener
 * observes: what it throws cannot undo an action already applied and committed, and failing the
 * component for it would run that component again and leave the listeners untold of the rest of
 * its actions. So a listener's exception is logged (its first in the run with its stack trace,
 * then a count at the run's end) and every listener is told of every action all the same.
 */
final class ActionListeners {
  private static final Logger log = LoggerFactory.getLogger(ActionListeners.class);

  private final String app;
  private final List<ActionListener> listeners;
  /** How many actions each listener threw on in this run, by its index. */
  private final AtomicLongArray failures;

  ActionListeners(String app, List<ActionListener> listeners) {
    this.app = app;
    this.listeners = List.copyOf(listeners);
    this.failures = new AtomicLongArray(this.listeners.size());
  }

  /** Tells every listener, in the order they were added, of one committed action. */
  void tell(String provider, StableKey key, TargetAction<?> action) {
    for (int i = 0; i < listeners.size(); i++) {
      ActionListener listener = listeners.get(i);
      try {
        listener.applied(provider, key, action);
      } catch (RuntimeException e) {
        if (failures.getAndIncrement(i) == 0) {
          log.warn("app '{}': action listener {} threw on the {} of {} in provider '{}'; the"
              + " action stands applied and committed, and the listener is still told of the"
              + " others (its further failures in this run are counted at the run's end)",
              app, listener, action.verb(), key, provider, e);
        }
      }
    }
  }

  /** Logs how many actions of the run each listener that threw failed on. */
  void reportFailures() {
    for (int i = 0; i < listeners.size(); i++) {
      long failed = failures.get(i);
      if (failed > 1) {
        log.warn("app '{}': action listener {} threw on {} actions of this run (the first logged"
            + " before)", app, listeners.get(i), failed);
      }
    }
  }
}
