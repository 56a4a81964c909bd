package io.cocoindex.runtime.plan;

/** What a run does with the declarations of its components. */
public enum RunMode {
  /** Reconcile, apply and remember. */
  UPDATE,
  /** Reconcile and plan (child-handler factories included); apply and persist nothing. */
  PREVIEW,
  /** Collect registrations only; every tracked state is then deleted through its handler. */
  DROP
}
