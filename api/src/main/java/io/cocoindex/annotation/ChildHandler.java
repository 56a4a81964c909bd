package io.cocoindex.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The child-handler factory method of a {@link ContainerTarget} or {@link NestedContainer}
 * handler: takes the container's action ({@code A}) and returns the {@code TargetHandler} of its
 * children, whose value type is the container's {@code childValue}. It is called before the
 * container's action is applied, and in a preview instead of it: build the handler from the
 * action and the handler's own fields, with no side effects. The engine calls it on the handler
 * that returned the action, even when that handler's sink and its generated factory are shared
 * with others.
 *
 * <pre>{@code
 * @ChildHandler
 * RowHandler rows(TableAction table) {
 *   return new RowHandler(db, table.name());
 * }
 * }</pre>
 *
 * <p>The processor generates {@code <Handler>_ChildHandlerFactory}, a typed {@code
 * ChildHandlerFactory<A>} calling this method. Declare the children's handler class as the return
 * type, as above: the {@link Attachment} methods of that class are what give the generated target
 * class its {@code declare<Name>} methods, and {@code TargetHandler<Row, ?, ?>} has none; and a
 * returned class annotated {@link NestedContainer} gives it {@code declare<Name>} and {@code
 * mount<Name>} of the nested containers among the children.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface ChildHandler {}
