package io.cocoindex.processor.validate;

import io.cocoindex.processor.mirror.AttachmentAnnotation;
import io.cocoindex.processor.mirror.TargetAnnotation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * The compilation's handler classes that give the target class of a container whose children
 * they handle methods of their own ({@code declare<Attachment>}, {@code declare<Nested>} and
 * {@code mount<Nested>}), as the rounds bring them. A {@code @ChildHandler} method declared to
 * return an interface or an abstract class hides them: the processor reads no method body, so it
 * cannot know which class is returned, and names these as the likely ones.
 */
public final class HandlersWithTargetMethods {
  private final Elements elements;
  private final Types types;
  private final TypeInspector inspector;
  /** By qualified name: a later round's element of the same type is another instance. */
  private final Set<String> seen = new TreeSet<>();

  public HandlersWithTargetMethods(Elements elements, TypeInspector inspector) {
    this.elements = elements;
    this.types = inspector.types();
    this.inspector = inspector;
  }

  /** Notes a {@code @NestedContainer} handler, or one with {@code @Attachment} methods. */
  public void add(TypeElement handler) {
    seen.add(handler.getQualifiedName().toString());
  }

  /**
   * The handlers a {@code @ChildHandler} method declared to return {@code declared}, an interface
   * or abstract class, may return in its place, each with the target methods {@code declared}
   * does not give: subtypes of it handling {@code childValue}, in the order of their names.
   */
  public List<Hidden> behind(TypeMirror declared, TypeMirror childValue) {
    TypeElement declaredClass = (TypeElement) types.asElement(declared);
    if (!isAbstract(declaredClass)) {
      return List.of();
    }
    List<String> declaredMethods = targetMethods(declaredClass);
    List<Hidden> hidden = new ArrayList<>();
    for (String name : seen) {
      TypeElement candidate = elements.getTypeElement(name);
      if (candidate == null
          || candidate.equals(declaredClass)
          || candidate.getKind() == ElementKind.INTERFACE
          || !types.isAssignable(types.erasure(candidate.asType()), types.erasure(declared))
          || !handles(candidate, childValue)) {
        continue;
      }
      List<String> methods = new ArrayList<>(targetMethods(candidate));
      methods.removeAll(declaredMethods);
      if (!methods.isEmpty()) {
        hidden.add(new Hidden(candidate, methods));
      }
    }
    return hidden;
  }

  /**
   * A handler class a {@code @ChildHandler} method's declared return type hides.
   *
   * @param handler the class
   * @param methods the target class's methods it would give, e.g. {@code declareIndex}
   */
  public record Hidden(TypeElement handler, List<String> methods) {}

  private static boolean isAbstract(TypeElement type) {
    return type.getKind() == ElementKind.INTERFACE
        || type.getModifiers().contains(Modifier.ABSTRACT);
  }

  private boolean handles(TypeElement handler, TypeMirror childValue) {
    List<TypeMirror> args = inspector.handlerTypeArguments(handler.asType()).orElse(List.of());
    return !args.isEmpty() && types.isSameType(args.get(0), childValue);
  }

  /**
   * The methods the target class of the containers whose children {@code handler} handles gets
   * from it: a {@code declare<Name>} per attachment, its own and inherited, and a nested
   * container's {@code declare<Name>} and {@code mount<Name>}.
   */
  private List<String> targetMethods(TypeElement handler) {
    List<String> methods = new ArrayList<>();
    TargetAnnotation.readNested(elements, handler).ifPresent(n -> {
      methods.add("declare" + n.name());
      methods.add("mount" + n.name());
    });
    for (TypeElement t = handler; t != null;
        t = types.asElement(t.getSuperclass()) instanceof TypeElement s ? s : null) {
      for (ExecutableElement m : ElementFilter.methodsIn(t.getEnclosedElements())) {
        AttachmentAnnotation.read(elements, m)
            .ifPresent(a -> methods.add("declare" + Identifiers.upperCamel(a.name())));
      }
    }
    return methods;
  }
}
