package io.cocoindex.testkit;

import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateStoreException;
import io.cocoindex.runtime.state.StateWrite;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The embedded store of an app of the extension, which can be armed to die at a {@link
 * CrashPoint}: from then on nothing more is written (every write fails and leaves the store as
 * the crash left it), which is what the next process finds after a {@code kill -9}. Unarmed, it
 * forwards everything.
 */
final class CrashingStateStore extends ForwardingStateStore {
  private CrashPoint point;
  private int precommits;
  private int commits;
  private volatile boolean dead;

  CrashingStateStore(StateStore delegate) {
    super(delegate);
  }

  synchronized void arm(CrashPoint point) {
    this.point = point;
    precommits = 0;
    commits = 0;
  }

  synchronized void disarm() {
    point = null;
  }

  boolean crashed() {
    return dead;
  }

  private StateStoreException crash() {
    return new StateStoreException("simulated crash " + point
        + " (CocoIndexExtension.updateCrashing): the process is dead, nothing more is written");
  }

  @Override
  public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
    synchronized (this) {
      if (dead) {
        return CompletableFuture.failedFuture(crash());
      }
      if (point != null) {
        boolean precommit = writes.stream().anyMatch(w -> w instanceof StateWrite.Precommit);
        boolean commit = !precommit; // settles, component records, forgotten states
        if (precommit && point.kind() == CrashPoint.Kind.AFTER_PRECOMMIT
            && ++precommits == point.occurrence()) {
          delegate.write(app, writes).join(); // durable, and then the process dies
          dead = true;
          return CompletableFuture.failedFuture(crash());
        }
        if (commit && point.kind() != CrashPoint.Kind.AFTER_PRECOMMIT
            && ++commits == point.occurrence()) {
          if (point.kind() == CrashPoint.Kind.AFTER_COMMIT) {
            delegate.write(app, writes).join();
          }
          dead = true;
          return CompletableFuture.failedFuture(crash());
        }
      }
    }
    return delegate.write(app, writes);
  }

  /** Recording a completed run as settled is a commit too: the one that settles its states. */
  @Override
  public void runSettled(String app, long version) {
    synchronized (this) {
      if (dead) {
        throw crash();
      }
      if (point != null && point.kind() != CrashPoint.Kind.AFTER_PRECOMMIT
          && ++commits == point.occurrence()) {
        if (point.kind() == CrashPoint.Kind.AFTER_COMMIT) {
          delegate.runSettled(app, version);
        }
        dead = true;
        throw crash();
      }
    }
    delegate.runSettled(app, version);
  }

  @Override
  public void clear(String app) {
    if (dead) {
      throw crash();
    }
    super.clear(app);
  }
}
