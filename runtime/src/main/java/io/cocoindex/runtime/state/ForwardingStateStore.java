package io.cocoindex.runtime.state;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A state store forwarding every call to another, for decorators that intercept a few of them:
 * metrics or logging around writes, or fault injection in tests. Every method is forwarded,
 * the defaults of {@link StateStore} included, so a decorated shared store keeps its leases; but
 * {@link StateStore#leaseComponentsReading}, which is made of the calls it stands for ({@link
 * #leaseComponents}, then {@link #componentsAt} and {@link #ownedByEach}), each forwarded, so
 * that a decorator intercepting one of them sees each such call. A decorator that intercepts none
 * of them may forward it too, for the decorated store's single round trip.
 */
public abstract class ForwardingStateStore implements StateStore {
  /** The store every call is forwarded to. */
  protected final StateStore delegate;

  /**
   * A store forwarding to {@code delegate}.
   *
   * @param delegate the decorated store
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingStateStore(StateStore delegate) {
    this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * Whether a write batch commits after an apply (it settles some state's possible records to
   * one), rather than precommits (which appends possible records): what a decorator that
   * simulates a crash or a full disk usually picks.
   *
   * @param writes a write batch, as given to {@link StateStore#write}
   * @return true if it holds a {@link StateWrite.Settle}
   */
  public static boolean isCommit(List<StateWrite> writes) {
    for (StateWrite w : writes) {
      if (w instanceof StateWrite.Settle) {
        return true;
      }
    }
    return false;
  }

  @Override
  public AutoCloseable lockForUpdate(String app) {
    return delegate.lockForUpdate(app);
  }

  @Override
  public AutoCloseable leaseComponent(String app, byte[] componentPath, boolean wait) {
    return delegate.leaseComponent(app, componentPath, wait);
  }

  @Override
  public void awaitComponentsReleased(String app, Collection<byte[]> componentPaths) {
    delegate.awaitComponentsReleased(app, componentPaths);
  }

  @Override
  public AutoCloseable leaseState(String app, byte[] statePath) {
    return delegate.leaseState(app, statePath);
  }

  @Override
  public void runEnded(String app, long version) {
    delegate.runEnded(app, version);
  }

  @Override
  public void checkRunAlive(String app, long version) {
    delegate.checkRunAlive(app, version);
  }

  @Override
  public void runAborted(String app, long version) {
    delegate.runAborted(app, version);
  }

  @Override
  public void runLostATask(String app) {
    delegate.runLostATask(app);
  }

  @Override
  public java.util.Set<Long> endedRuns(String app, Collection<Long> versions) {
    return delegate.endedRuns(app, versions);
  }

  @Override
  public List<AutoCloseable> leaseStates(String app, List<byte[]> statePaths) {
    return delegate.leaseStates(app, statePaths);
  }

  @Override
  public List<AutoCloseable> leaseComponents(String app, List<byte[]> componentPaths) {
    return delegate.leaseComponents(app, componentPaths);
  }

  @Override
  public List<AutoCloseable> leaseComponentsToSweep(String app, List<byte[]> componentPaths) {
    return delegate.leaseComponentsToSweep(app, componentPaths);
  }

  @Override
  public boolean exclusiveWhileLocked() {
    return delegate.exclusiveWhileLocked();
  }

  /** The delegate's: a decorator holds the delegate's data. */
  @Override
  public String identity() {
    return delegate.identity();
  }

  @Override
  public boolean hasStates(String app) {
    return delegate.hasStates(app);
  }

  @Override
  public boolean recordsSettledRuns() {
    return delegate.recordsSettledRuns();
  }

  @Override
  public void runSettled(String app, long version) {
    delegate.runSettled(app, version);
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
  public List<List<TrackedState>> ownedByEach(String app, List<byte[]> componentPaths) {
    return delegate.ownedByEach(app, componentPaths);
  }

  @Override
  public Map<ByteKey, OwnedStates> ownedByFrom(String app, byte[] componentPath,
      byte[] before, int maxChunks) {
    return delegate.ownedByFrom(app, componentPath, before, maxChunks);
  }

  @Override
  public void ownedInSubtree(String app, byte[] componentPath, OwnerVisitor visitor) {
    delegate.ownedInSubtree(app, componentPath, visitor);
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
  public List<Optional<ComponentRecord>> componentsAt(String app, List<byte[]> paths) {
    return delegate.componentsAt(app, paths);
  }

  @Override
  public List<ComponentRecord> components(String app) {
    return delegate.components(app);
  }

  @Override
  public List<byte[]> componentPathsBelow(String app, byte[] path) {
    return delegate.componentPathsBelow(app, path);
  }

  @Override
  public void componentsInOrder(String app, Consumer<ComponentRecord> visitor) {
    delegate.componentsInOrder(app, visitor);
  }

  @Override
  public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
    return delegate.write(app, writes);
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
