package io.cocoindex.reliability;

import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateWrite;
import io.cocoindex.runtime.state.TrackedState;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** A state store forwarding everything to another; subclasses intercept what they test. */
class DelegatingStateStore implements StateStore {
  final StateStore delegate;

  DelegatingStateStore(StateStore delegate) {
    this.delegate = delegate;
  }

  /**
   * Whether a write batch is a commit after an apply (it settles some state's possible records
   * to one), rather than a precommit (which appends possible records).
   */
  static boolean isCommit(List<StateWrite> writes) {
    return writes.stream().anyMatch(w -> w instanceof StateWrite.Settle);
  }

  @Override
  public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
    return delegate.write(app, writes);
  }

  @Override
  public AutoCloseable lockForUpdate(String app) {
    return delegate.lockForUpdate(app);
  }

  @Override
  public boolean exclusiveWhileLocked() {
    return delegate.exclusiveWhileLocked();
  }

  @Override
  public boolean hasStates(String app) {
    return delegate.hasStates(app);
  }

  @Override
  public long nextVersion(String app) {
    return delegate.nextVersion(app);
  }

  @Override
  public Optional<TrackedState> get(String app, byte[] path) {
    return delegate.get(app, path);
  }

  @Override
  public List<TrackedState> getAll(String app, Collection<byte[]> paths) {
    return delegate.getAll(app, paths);
  }

  @Override
  public List<TrackedState> ownedBy(String app, byte[] componentPath) {
    return delegate.ownedBy(app, componentPath);
  }

  @Override
  public void scan(String app, byte[] path, Consumer<TrackedState> visitor) {
    delegate.scan(app, path, visitor);
  }

  @Override
  public Optional<ComponentRecord> component(String app, byte[] path) {
    return delegate.component(app, path);
  }

  @Override
  public List<ComponentRecord> components(String app) {
    return delegate.components(app);
  }

  @Override
  public void clear(String app) {
    delegate.clear(app);
  }

  @Override
  public List<String> apps() {
    return delegate.apps();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
