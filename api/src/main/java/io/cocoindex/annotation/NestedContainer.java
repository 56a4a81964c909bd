package io.cocoindex.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A child handler whose target states may be containers themselves: a container nested in a
 * container (a subdirectory among a directory's entries, whose own entries are its children).
 * Put it on the handler class a {@link ChildHandler} method returns; like a {@link
 * ContainerTarget}, it must have exactly one {@link ChildHandler} method, which builds the
 * handler of a nested container's children from that container's action.
 *
 * <pre>{@code
 * @NestedContainer(name = "Subdir", child = "Entry", childValue = Entry.class)
 * final class EntryHandler implements TargetHandler<Entry, EntryRecord, EntryAction> {
 *   @ChildHandler
 *   EntryHandler entries(EntryAction subdir) { return new EntryHandler(subdir.path(), sink); }
 *   ...
 * }
 *
 * DirTarget out = dirs.mountDir(ctx, new DirSpec("/out"));         // a root container
 * out.declareEntry(ctx, Entry.file("a.txt", bytes));                // a plain child
 * SubdirTarget sub = out.mountSubdir(ctx, Entry.dir("by-author"));  // a nested container
 * sub.declareEntry(ctx, Entry.file("jane.txt", bytes));             // its child
 * }</pre>
 *
 * <p>The processor generates, in the handler's package:
 *
 * <ul>
 *   <li>{@code <Handler>_ChildHandlerFactory}, calling the {@link ChildHandler} method: pass it to
 *       {@code TargetActionSink.withChildHandler} for the sink of this handler's actions;
 *   <li>the target class {@code <name>Target}, one declared nested container, with {@code
 *       declare<child>}, a {@code declare<Name>} per {@link Attachment} of its children's handler,
 *       and, when that handler is a {@code @NestedContainer} too, its {@code declare<name>} and
 *       {@code mount<name>};
 *   <li>on every generated target class whose children this handler handles (the one a {@link
 *       ContainerTarget} generates, or another nested one), {@code declare<name>} and {@code
 *       mount<name>}, taking the child value and returning {@code <name>Target}.
 * </ul>
 *
 * <p>Nesting may recur (a subdirectory's entries are handled by the entry handler again): each
 * handler generates one target class, and a target class names the others only as return types.
 * The handler must be in the package of every container handler whose {@link ChildHandler}
 * returns it: their target classes construct its target class.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface NestedContainer {
  /**
   * The nested container's noun, a Java identifier in UpperCamelCase: {@code declare<name>},
   * {@code mount<name>} and the class {@code <name>Target}.
   *
   * @return the noun, such as {@code "Subdir"}
   */
  String name();

  /**
   * The nested container's children's noun, a Java identifier in UpperCamelCase: {@code
   * declare<child>} on {@code <name>Target}.
   *
   * @return the noun, such as {@code "Entry"}
   */
  String child();

  /**
   * The nested container's children's value type: the {@code V} of the handler the {@link
   * ChildHandler} method returns; a class, never a primitive type.
   *
   * @return the class of the children's declared values
   */
  Class<?> childValue();
}
