package io.cocoindex.runtime.component;

import io.cocoindex.runtime.plan.DeclaredTarget;
import io.cocoindex.runtime.plan.Run;
import io.cocoindex.runtime.plan.RunMode;
import io.cocoindex.runtime.state.StateStore;
import java.util.List;

/**
 * The root component's lease, held across its commit on a store shared by workers.
 *
 * <p>Every worker of a round runs the root's body (it registers the providers and mounts the
 * components), so each would reconcile the states the root declares itself, and two reading the
 * store before either's precommit each applied what it planned: a state created twice. A mounted
 * component is leased before its body and read under its lease; the root cannot be (its lease
 * held over its body would hold every worker's round to one at a time), so it takes its lease
 * once its body and children are done, waiting while another worker's root commit holds it, and
 * reads its record and states again under it: the second worker finds what the first committed.
 * Only the root's own commit is serialized, and only for a root that declares states: one that
 * mounts components only (most apps) takes no lease, as before; what it no longer declares goes
 * to the orphan sweep, which leases each state it deletes. A store with one writer grants every
 * lease at once, and is not asked.
 */
final class RootCommitLease {
  private RootCommitLease() {}

  /**
   * Takes the lease of {@code root}, whose body declared {@code declared}, for its commit, and has
   * it read its record again when the commit asks for it.
   *
   * @param root the root component, its body and children done
   * @param declared what its body declared
   * @return the lease, to close once the commit has ended; {@link StateStore#NO_LEASE} when none
   *     is needed
   */
  static AutoCloseable take(ComponentContext root, List<DeclaredTarget> declared) {
    Run run = root.run;
    if (declared.isEmpty() || run.mode != RunMode.UPDATE || run.store.exclusiveWhileLocked()) {
      return StateStore.NO_LEASE;
    }
    AutoCloseable lease = run.store.leaseComponent(run.app, root.path.encoded(), true);
    root.readStoredAgain();
    return lease;
  }
}
