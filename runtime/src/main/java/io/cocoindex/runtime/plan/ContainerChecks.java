package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.ContainerChangedException;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.StateWrite;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * On a store shared by workers, orders a container's change of child generation (declared
 * without children, its children destroyed, or its deletion by the orphan sweep: its action
 * takes them along) against another worker's writes of its children, resolved in the generation
 * before. Two workers of one round may read the source at different moments; a child created in
 * the target after the container's action, but tracked in the older generation, would pass for
 * new once the container has children again (the record lost: a create where the row is), or,
 * no longer declared, never be deleted; below a deleted container, the deletion's settle forgets
 * it while the target holds it.
 *
 * <ul>
 *   <li>A child's precommit carries the condition that its container, and each container
 *       above it, is still where it was resolved ({@link StateWrite.ContainerUnchanged}):
 *       written after the change, it is refused, and nothing of its component is applied. A
 *       deletion's precommit moves the container's child epoch for that ({@link
 *       Reconciliation#deletionInvalidatesChildren}): it keeps the generation until its settle
 *       removes the row. The orphan sweep's deletions of children carry the condition too.
 *   <li>A change's precommit waits for the children's precommits under way (the store locks the
 *       container's row against it meanwhile); then, before its action, the change looks for
 *       children whose writes are still in flight: precommitted by another run still going and
 *       not settled, so maybe applied after the action. If there is one, its component (for a
 *       deletion, the state's owner) fails before its action, leaving what its precommit wrote:
 *       the container's both forms possible, its children "may be missing" (a new epoch), each
 *       as the next run finds it.
 * </ul>
 *
 * <p>The embedded store has one writer: neither check is made there.
 */
final class ContainerChecks {
  private ContainerChecks() {}

  /**
   * Adds to {@code writes} the condition on each container above a state of {@code level} that
   * is precommitted (once per container; {@code component} null for the orphan sweep's
   * deletions, each precommitted): its own, in the generation and epoch its provider
   * resolved in, and those of the containers above that one, each in the generation the
   * container below it was reconciled in (a container's action takes everything below it
   * along, and a change above leaves the one below as it is in the store).
   */
  static void addConditions(
      Run run, List<Reconciliation> level, TargetPath component, List<StateWrite> writes) {
    Map<ByteKey, Provider<?>> containers = null;
    for (Reconciliation r : level) {
      if (r.provider.container() == null
          || (component != null && r.leavesRowAsIs(component))) {
        continue;
      }
      if (containers == null) {
        containers = new LinkedHashMap<>();
      }
      for (Provider<?> p = r.provider; p != null && p.container() != null;
          p = run.providers.lookup(p.container().parent())) {
        if (containers.putIfAbsent(p.container().key(), p) != null) {
          break; // and those above it too
        }
      }
    }
    if (containers == null) {
      return;
    }
    for (Provider<?> p : containers.values()) {
      writes.add(new StateWrite.ContainerUnchanged(
          p.container().encoded(), p.generation(), p.epoch()));
    }
  }

  /**
   * Fails the component, before any of {@code level}'s actions is applied, if one of its states
   * starts a new child generation while another run still going has a child's write below it in
   * flight. Called once the level's precommits have landed: a child precommitted after them is
   * refused by its condition.
   *
   * @throws ContainerChangedException naming the container and the runs
   */
  static void refuseWhileChildrenInFlight(Run run, List<Reconciliation> level) {
    for (Reconciliation r : level) {
      if (r.startsChildGeneration()) {
        refuseWhileChildrenInFlight(run, r.path);
      }
    }
  }

  /**
   * Fails before the action of {@code container}'s change of generation (or deletion), once
   * its precommit has landed, if another run still going has a child's write below it in
   * flight.
   *
   * @throws ContainerChangedException naming the container and the runs
   */
  static void refuseWhileChildrenInFlight(Run run, TargetPath container) {
    byte[] path = container.encoded();
    Set<Long> writers = new HashSet<>();
    run.store.scan(run.app, path, s -> {
      // One possible record is a settled state; on this store a precommit leaves two at least.
      if (s.records().size() > 1 && !Arrays.equals(s.path(), path)) {
        for (PossibleRecord p : s.records()) {
          if (p.version() != 0 && p.version() != run.version) {
            writers.add(p.version());
          }
        }
      }
    });
    if (writers.isEmpty()) {
      return;
    }
    writers.removeAll(run.store.endedRuns(run.app, writers));
    if (!writers.isEmpty()) {
      throw ContainerChangedException.childrenInFlight(container.toString(), writers);
    }
  }
}
