package io.cocoindex.runtime.state;

/** One change in a store write batch; a batch is applied atomically. */
public sealed interface StateWrite
    permits StateWrite.PutState,
        StateWrite.DeleteState,
        StateWrite.DeleteDescendants,
        StateWrite.PutComponent,
        StateWrite.DeleteComponent {

  /** Insert or replace the tracking of one path. */
  record PutState(TrackedState state) implements StateWrite {}

  /** Forget one path. */
  record DeleteState(byte[] path) implements StateWrite {}

  /** Forget every path strictly below {@code path} (a deleted container's children). */
  record DeleteDescendants(byte[] path) implements StateWrite {}

  /** Insert or replace a component's record. */
  record PutComponent(ComponentRecord component) implements StateWrite {}

  /** Forget a component's record. */
  record DeleteComponent(byte[] path) implements StateWrite {}
}
