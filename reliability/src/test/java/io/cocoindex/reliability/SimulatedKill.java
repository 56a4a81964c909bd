package io.cocoindex.reliability;

import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@code kill -9} within one JVM, for the model-based tests: once armed, the K-th event of the
 * run (a store write, the run recorded as settled or ended, a sink call) is the last to take
 * effect, or the first not to; from then on nothing the run does reaches the store or the
 * external system, as if its process had died there. The run itself goes on to its end (its
 * sinks fail, its writes are dropped), and the app is then closed and opened again, as a new
 * process would. Which event is the K-th depends on the engine's threads, as a real kill's
 * moment does.
 */
final class SimulatedKill {
  private final AtomicInteger events = new AtomicInteger();
  private volatile int at = Integer.MAX_VALUE;
  private volatile boolean lastLands;

  /** Dies at the {@code k}-th event from now; {@code lastLands}: that event still takes effect. */
  void arm(int k, boolean lastLands) {
    this.lastLands = lastLands;
    events.set(0);
    at = k;
  }

  void disarm() {
    at = Integer.MAX_VALUE;
  }

  /** Counts an event; whether it takes effect (the process is alive for it). */
  boolean lands() {
    int n = events.incrementAndGet();
    return n < at || (n == at && lastLands);
  }

  /** Whether the process died in this run. */
  boolean died() {
    return events.get() >= at;
  }

  /** {@code delegate} as this process sees it: what it writes after its death is lost. */
  StateStore store(StateStore delegate) {
    return new ForwardingStateStore(delegate) {
      @Override
      public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
        return lands() ? delegate.write(app, writes) : CompletableFuture.completedFuture(null);
      }

      @Override
      public void runSettled(String app, long version) {
        if (lands()) {
          delegate.runSettled(app, version);
        }
      }

      @Override
      public void runEnded(String app, long version) {
        if (!died()) {
          delegate.runEnded(app, version);
        }
      }

      @Override
      public void runAborted(String app, long version) {
        if (!died()) {
          delegate.runAborted(app, version);
        }
      }

      @Override
      public void clear(String app) {
        if (lands()) {
          delegate.clear(app);
        }
      }
    };
  }
}
