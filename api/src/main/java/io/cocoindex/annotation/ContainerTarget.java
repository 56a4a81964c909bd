package io.cocoindex.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A root container handler: a {@code TargetHandler<V, R, A>} class whose target states (tables,
 * directories) hold child target states (rows, files). It must have exactly one {@link
 * ChildHandler} method, which builds the children's handler from the container's action; the
 * processor turns it into {@code <Handler>_ChildHandlerFactory}, to pass to {@code
 * TargetActionSink.withChildHandler}. It also generates the API class {@code <name>s} (or {@link
 * #api()}) and the target class {@code <name>Target}:
 *
 * <pre>{@code
 * @ContainerTarget(provider = "example.com/db/table", name = "Table", child = "Row",
 *     childValue = Row.class)
 * public final class TableHandler implements TargetHandler<TableSpec, TableSpec, TableAction> {
 *   private final TargetActionSink<TableAction> sink = TargetActionSink.withChildHandler(
 *       this::apply, new TableHandler_ChildHandlerFactory(this));
 *
 *   @ChildHandler
 *   RowHandler rows(TableAction table) { return new RowHandler(db, table.name()); }
 *   ...
 * }
 *
 * Tables tables = Tables.register(ctx, new TableHandler(db));
 * TableTarget docs = tables.mountTable(ctx, new TableSpec("docs"));   // committed, ready
 * docs.declareRow(ctx, new Row("r1", "hello"));                      // a child row
 * docs.declareIndex(ctx, new IndexSpec("by_text"));                  // an @Attachment of RowHandler
 * }</pre>
 *
 * <p>{@code declare<name>} declares the container in the calling component (its children resolve
 * when that component commits, so declare them from the same component); {@code mount<name>}
 * commits it first, so any component may declare children into the returned target. When the
 * children's handler is a {@link NestedContainer} (a subdirectory among a directory's entries),
 * the target class also declares and mounts those nested containers.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface ContainerTarget {
  /**
   * The provider name, unique in an app (and checked unique in a compilation).
   *
   * @return the name the generated {@code register} registers the root provider under, such as
   *     {@code "example.com/db/table"}
   */
  String provider();

  /**
   * The container's noun, a Java identifier in UpperCamelCase: {@code declare<name>}.
   *
   * @return the noun, such as {@code "Table"}
   */
  String name();

  /**
   * The children's noun, a Java identifier in UpperCamelCase: {@code declare<child>}.
   *
   * @return the noun, such as {@code "Row"}
   */
  String child();

  /**
   * The children's value type: the {@code V} of the handler the {@link ChildHandler} returns; a
   * class, never a primitive type ({@code Integer.class}, not {@code int.class}).
   *
   * @return the class of the children's declared values
   */
  Class<?> childValue();

  /**
   * The simple name of the generated API class; by default the regular English plural of {@link
   * #name()} ({@code Documents}, {@code Boxes}, {@code Directories}): set it for an irregular one.
   *
   * @return the API class's simple name, or {@code ""} for the plural of {@link #name()}
   */
  String api() default "";
}
