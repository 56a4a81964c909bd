package io.cocoindex;

import java.util.Objects;

/**
 * One operation a {@link TargetActionSink} applies to an external system: the operation kind
 * travels beside the connector's own action value.
 *
 * @param <A> the connector's action type
 */
public sealed interface TargetAction<A>
    permits TargetAction.Create, TargetAction.Update, TargetAction.Delete {

  /**
   * The connector's action value.
   *
   * @return the value the action was made with; never null
   */
  A value();

  /**
   * Create a target state that did not exist.
   *
   * @param <A> the connector's action type
   * @param value the connector's action value
   */
  record Create<A>(A value) implements TargetAction<A> {
    /**
     * Checks that the value is given.
     *
     * @param value the connector's action value
     * @throws NullPointerException when {@code value} is null
     */
    public Create {
      Objects.requireNonNull(value, "value");
    }
  }

  /**
   * Update a target state that (may) exist.
   *
   * @param <A> the connector's action type
   * @param value the connector's action value
   */
  record Update<A>(A value) implements TargetAction<A> {
    /**
     * Checks that the value is given.
     *
     * @param value the connector's action value
     * @throws NullPointerException when {@code value} is null
     */
    public Update {
      Objects.requireNonNull(value, "value");
    }
  }

  /**
   * Delete a target state that is no longer declared.
   *
   * @param <A> the connector's action type
   * @param value the connector's action value
   */
  record Delete<A>(A value) implements TargetAction<A> {
    /**
     * Checks that the value is given.
     *
     * @param value the connector's action value, enough to find what to delete
     * @throws NullPointerException when {@code value} is null
     */
    public Delete {
      Objects.requireNonNull(value, "value");
    }
  }

  /**
   * A {@link Create} of {@code a}.
   *
   * @param a the connector's action value describing what to create
   * @param <A> the connector's action type
   * @return the action
   * @throws NullPointerException when {@code a} is null
   */
  static <A> TargetAction<A> create(A a) {
    return new Create<>(a);
  }

  /**
   * An {@link Update} to {@code a}.
   *
   * @param a the connector's action value describing the state to reach
   * @param <A> the connector's action type
   * @return the action
   * @throws NullPointerException when {@code a} is null
   */
  static <A> TargetAction<A> update(A a) {
    return new Update<>(a);
  }

  /**
   * A {@link Delete} described by {@code a}.
   *
   * @param a the connector's action value naming what to delete
   * @param <A> the connector's action type
   * @return the action
   * @throws NullPointerException when {@code a} is null
   */
  static <A> TargetAction<A> delete(A a) {
    return new Delete<>(a);
  }

  /**
   * The lower-case verb of this action, for logs and previews.
   *
   * @return {@code "create"}, {@code "update"} or {@code "delete"}
   */
  default String verb() {
    if (this instanceof Create) {
      return "create";
    }
    return this instanceof Update ? "update" : "delete";
  }
}
