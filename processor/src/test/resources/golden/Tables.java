package test;

import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.TargetStates;
import java.util.Objects;
import javax.annotation.processing.Generated;

/**
 * Declares Table target states handled by {@link TableHandler}. Call {@link #register} once per run (from the app's main component), then declare through the returned instance from any component.
 */
@Generated("io.cocoindex.processor.CocoIndexProcessor")
@SuppressWarnings({"unchecked", "rawtypes", "deprecation", "removal"})
public final class Tables {
  /**
   * The provider name the handler is registered under.
   */
  public static final String PROVIDER = "test/table";

  private final TargetStateProvider<TableSpec> provider;

  private Tables(TargetStateProvider<TableSpec> provider) {
    this.provider = provider;
  }

  /**
   * Registers {@code handler} as the root provider {@value #PROVIDER} for this run; states it declared in earlier runs and no longer declares are deleted through it.
   *
   * @param ctx the context of the app's main component
   * @param handler the handler of these target states
   * @return the API to declare through in this run
   */
  public static Tables register(Ctx ctx, TableHandler handler) {
    return new Tables(TargetStates.registerRootTargetStatesProvider(ctx, PROVIDER, Objects.requireNonNull(handler, "handler")));
  }

  /**
   * Declares {@code table} as a Table in the calling component; its children resolve when that component commits, so declare them from the same component.
   *
   * @param ctx the calling component's context
   * @param table the Table to declare
   * @return the declared Table, to declare its children through
   */
  public TableTarget declareTable(Ctx ctx, TableSpec table) {
    return new TableTarget(TargetStates.<TableSpec, Row>declareTargetStateWithChild(ctx, provider.targetState(table.name(), table)));
  }

  /**
   * Declares {@code table} as a Table and commits it in a foreground child component: its children may be declared from any component at once.
   *
   * @param ctx the calling component's context
   * @param table the Table to declare
   * @return the declared Table, to declare its children through
   */
  public TableTarget mountTable(Ctx ctx, TableSpec table) {
    return new TableTarget(TargetStates.<TableSpec, Row>mountTarget(ctx, provider.targetState(table.name(), table)));
  }

  /**
   * The registered root provider, for what this API does not cover.
   *
   * @return the root provider
   */
  public TargetStateProvider<TableSpec> provider() {
    return provider;
  }
}
