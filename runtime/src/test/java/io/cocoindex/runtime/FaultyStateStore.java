package io.cocoindex.runtime;

import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.StateStoreException;
import io.cocoindex.runtime.state.StateWrite;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * A state store that fails the writes a test picks, as a crash between sink and commit would. It
 * settles states one by one (no settled runs), so that every settle is a write it can fail.
 */
final class FaultyStateStore extends ForwardingStateStore {
  volatile Predicate<List<StateWrite>> failWrite = w -> false;

  FaultyStateStore(StateStore delegate) {
    super(delegate);
  }

  /** Every settle goes through {@link #write}, where a test can fail it. */
  @Override
  public boolean recordsSettledRuns() {
    return false;
  }

  @Override
  public CompletableFuture<Void> write(String app, List<StateWrite> writes) {
    if (failWrite.test(writes)) {
      return CompletableFuture.failedFuture(new StateStoreException("injected write failure"));
    }
    return super.write(app, writes);
  }
}
