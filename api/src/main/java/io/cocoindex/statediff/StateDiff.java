package io.cocoindex.statediff;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Decides which write makes an external state converge to the desired one, from the tracking
 * records of earlier runs; the building block of a {@code TargetHandler.reconcile}.
 *
 * <pre>{@code
 * DiffAction action = StateDiff.diff(
 *     new TrackingRecordTransition<>(desiredFingerprint, prevPossibleRecords, prevMayBeMissing));
 * if (action == null) return null;                  // already converged
 * if (action == DiffAction.DELETE) return delete(); // no longer declared
 * return write();                                   // INSERT, UPSERT or REPLACE
 * }</pre>
 */
public final class StateDiff {

  private StateDiff() {}

  /**
   * The write needed to make the state converge to {@code t.desired()}.
   *
   * <ul>
   *   <li>{@code t} is null: {@code null}.
   *   <li>not declared ({@code desired} null): {@link DiffAction#DELETE} if any previous record
   *       exists, else {@code null}.
   *   <li>some previous record differs from {@code desired}: {@link DiffAction#REPLACE}.
   *   <li>all equal it (or none) and {@code prevMayBeMissing} is false: {@code null}, even with no
   *       previous record at all.
   *   <li>otherwise {@link DiffAction#INSERT} when no previous record exists, else {@link
   *       DiffAction#UPSERT}.
   * </ul>
   *
   * @param t the transition, or {@code null} (nothing to do)
   * @param <R> the tracking record type
   * @return the action, or {@code null} when nothing has to be written
   */
  public static <R> DiffAction diff(TrackingRecordTransition<R> t) {
    if (t == null) {
      return null;
    }
    if (t.desired() == null) {
      return t.prev().isEmpty() ? null : DiffAction.DELETE;
    }
    for (R p : t.prev()) {
      if (!Objects.deepEquals(p, t.desired())) { // arrays (byte[] records) by content
        return DiffAction.REPLACE;
      }
    }
    if (!t.prevMayBeMissing()) {
      return null;
    }
    return t.prev().isEmpty() ? DiffAction.INSERT : DiffAction.UPSERT;
  }

  /**
   * Narrows a transition of states that the user or the system may own to what the system must
   * act on.
   *
   * <ul>
   *   <li>{@code desired} is user-managed: {@code null} (the user owns it; leave it alone).
   *   <li>{@code desired} is null and {@code prev} is empty or holds a user-managed record:
   *       {@code null} (nothing to delete, or the user's state must survive).
   *   <li>otherwise a transition to {@code desired.record()} (or null) from the records of the
   *       system-managed previous states only, with the same {@code prevMayBeMissing}.
   * </ul>
   *
   * @param desired the desired record, or {@code null} when not declared
   * @param prev every record that may currently hold (no nulls)
   * @param prevMayBeMissing whether the current state may be absent from {@code prev}
   * @param <R> the tracking record type
   * @return the system's transition, or {@code null} when the system must leave the state alone
   */
  public static <R> TrackingRecordTransition<R> resolveSystemTransition(
      MutualTrackingRecord<R> desired,
      List<MutualTrackingRecord<R>> prev,
      boolean prevMayBeMissing) {
    Objects.requireNonNull(prev, "prev");
    if (desired != null && desired.managedBy() == ManagedBy.USER) {
      return null;
    }
    if (desired == null
        && (prev.isEmpty() || prev.stream().anyMatch(p -> p.managedBy() == ManagedBy.USER))) {
      return null;
    }
    List<R> systemPrev = new ArrayList<>(prev.size());
    for (MutualTrackingRecord<R> p : prev) {
      if (p.managedBy() == ManagedBy.SYSTEM) {
        systemPrev.add(p.record());
      }
    }
    return new TrackingRecordTransition<>(
        desired == null ? null : desired.record(), systemPrev, prevMayBeMissing);
  }

  /**
   * Diffs a composite record: the main record with {@link #diff}, and groups the sub-records by
   * key into one transition each.
   *
   * <ul>
   *   <li>{@code t} is null: no main action, no subs.
   *   <li>not declared: {@link DiffAction#DELETE} (or {@code null} when no previous record
   *       exists) and no subs: deleting the whole removes its parts.
   *   <li>otherwise: the main action is the diff of the main records. Each key of a desired or
   *       previous sub-record gets a transition from the previous records' entries for that key to
   *       the desired entry (or {@code null}). It may miss its previous state when the whole does,
   *       when the main action is {@link DiffAction#REPLACE} or {@link DiffAction#DELETE} (the
   *       parts may have gone with the whole), or when some previous record has no entry for
   *       that key.
   * </ul>
   *
   * <p>Subs come in a reproducible order: the desired keys in the desired record's order, then
   * the keys found only in previous records, in the order first seen.
   *
   * @param t the transition of composite records, or {@code null} (nothing to do)
   * @param <M> the main record type
   * @param <K> the sub-record key type
   * @param <S> the sub-record type
   * @return the main action and a transition per sub-record key
   */
  public static <M, K, S> CompositeDiff<K, S> diffComposite(
      TrackingRecordTransition<CompositeTrackingRecord<M, K, S>> t) {
    if (t == null) {
      return CompositeDiff.none();
    }
    CompositeTrackingRecord<M, K, S> desired = t.desired();
    if (desired == null) {
      return new CompositeDiff<>(t.prev().isEmpty() ? null : DiffAction.DELETE, Map.of());
    }
    List<M> prevMains = new ArrayList<>(t.prev().size());
    t.prev().forEach(p -> prevMains.add(p.main()));
    DiffAction main =
        diff(new TrackingRecordTransition<>(desired.main(), prevMains, t.prevMayBeMissing()));
    boolean subPrevMayBeMissing =
        t.prevMayBeMissing() || main == DiffAction.REPLACE || main == DiffAction.DELETE;

    Map<K, List<S>> prevByKey = new LinkedHashMap<>();
    desired.sub().keySet().forEach(k -> prevByKey.put(k, new ArrayList<>()));
    for (CompositeTrackingRecord<M, K, S> p : t.prev()) {
      p.sub().forEach((k, s) -> prevByKey.computeIfAbsent(k, unused -> new ArrayList<>()).add(s));
    }

    Map<K, TrackingRecordTransition<S>> subs = new LinkedHashMap<>();
    prevByKey.forEach(
        (k, prevSubs) ->
            subs.put(
                k,
                new TrackingRecordTransition<>(
                    desired.sub().get(k),
                    prevSubs,
                    // a previous record without this key: the part may not exist there
                    subPrevMayBeMissing || prevSubs.size() < t.prev().size())));
    return new CompositeDiff<>(main, subs);
  }
}
