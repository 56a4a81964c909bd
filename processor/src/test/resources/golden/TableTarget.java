package test;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.TargetStates;
import javax.annotation.processing.Generated;

/**
 * A declared Table of {@link TableHandler}: declares its Row children. Obtained from {@link Tables}.
 */
@Generated("io.cocoindex.processor.CocoIndexProcessor")
@SuppressWarnings({"unchecked", "rawtypes", "deprecation", "removal"})
public final class TableTarget {
  private final TargetStateProvider<Row> children;

  TableTarget(TargetStateProvider<Row> children) {
    this.children = children;
  }

  /**
   * Declares {@code row} as a Row of this container, from the calling component.
   *
   * @param ctx the calling component's context
   * @param row the Row to declare
   */
  public void declareRow(Ctx ctx, Row row) {
    TargetStates.declareTargetState(ctx, children.targetState(row.id(), row));
  }

  /**
   * Declares {@code index} as an {@code index} attachment of this container, from the calling component.
   *
   * @param ctx the calling component's context
   * @param index the Index to declare
   */
  public void declareIndex(Ctx ctx, IndexSpec index) {
    TargetStates.declareTargetState(ctx, children.<IndexSpec>attachment(ctx, "index").targetState(index.name(), index));
  }

  /**
   * The provider of this container's children, for what this class does not cover.
   *
   * @return the children's provider
   */
  public TargetStateProvider<Row> children() {
    return children;
  }
}
