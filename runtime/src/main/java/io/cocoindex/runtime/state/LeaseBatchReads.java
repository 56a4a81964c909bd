package io.cocoindex.runtime.state;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link StateStore#leaseComponentsReading} made of the calls it stands for: the leases, then the
 * records, then the states, each a call of the store's own.
 */
final class LeaseBatchReads {
  private static final Logger log = LoggerFactory.getLogger(LeaseBatchReads.class);

  private LeaseBatchReads() {}

  static StateStore.LeaseBatch byParts(StateStore store, String app, List<byte[]> paths,
      boolean[] readRecords, long maxStates) {
    List<AutoCloseable> leases = store.leaseComponents(app, paths);
    int n = paths.size();
    List<Optional<ComponentRecord>> records = nulls(n);
    List<List<TrackedState>> states = nulls(n);
    StateStore.LeaseBatch batch = new StateStore.LeaseBatch(leases, records, states);
    List<Integer> wanted = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (leases.get(i) != null && readRecords[i]) {
        wanted.add(i);
      }
    }
    if (wanted.isEmpty()) {
      return batch;
    }
    List<byte[]> wantedPaths = new ArrayList<>(wanted.size());
    wanted.forEach(i -> wantedPaths.add(paths.get(i)));
    List<Optional<ComponentRecord>> read;
    try {
      read = store.componentsAt(app, wantedPaths);
    } catch (RuntimeException e) {
      log.debug("reading the records of {} leased components failed; each reads its own",
          wanted.size(), e);
      return batch;
    }
    for (int j = 0; j < wanted.size(); j++) {
      records.set(wanted.get(j), read.get(j));
    }
    List<Integer> owners = statesToRead(records, maxStates);
    if (owners.isEmpty()) {
      return batch;
    }
    List<byte[]> ownerPaths = new ArrayList<>(owners.size());
    owners.forEach(i -> ownerPaths.add(paths.get(i)));
    List<List<TrackedState>> owned;
    try {
      owned = store.ownedByEach(app, ownerPaths);
    } catch (RuntimeException e) {
      log.debug("reading the states of {} leased components failed; each reads its own",
          owners.size(), e);
      return batch;
    }
    for (int j = 0; j < owners.size(); j++) {
      states.set(owners.get(j), owned.get(j));
    }
    return batch;
  }

  /** A list of {@code n} nulls, to be set. */
  static <T> List<T> nulls(int n) {
    return new ArrayList<>(Collections.nCopies(n, null));
  }

  /**
   * Which of the components whose {@code records} were read (null: not read; empty: none) have
   * their states read, in order: those with the fewest states by their records (ties in order),
   * as many as their counts add up to at most {@code maxStates}. A component without a record
   * owns nothing (a record is written with or before a component's first state).
   */
  static List<Integer> statesToRead(List<Optional<ComponentRecord>> records, long maxStates) {
    List<Integer> withRecords = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      Optional<ComponentRecord> r = records.get(i);
      if (r != null && r.isPresent()) {
        withRecords.add(i);
      }
    }
    withRecords.sort(Comparator.comparingLong((Integer i) -> records.get(i).get().stateCount())
        .thenComparingInt(i -> i));
    List<Integer> out = new ArrayList<>();
    long states = 0;
    for (int i : withRecords) {
      states += records.get(i).get().stateCount();
      if (states > maxStates) {
        break;
      }
      out.add(i);
    }
    out.sort(null);
    return out;
  }
}
