package io.cocoindex.processor.validate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.WildcardTypeName;
import io.cocoindex.TargetHandler;
import io.cocoindex.processor.mirror.AnnotationNames;
import io.cocoindex.processor.mirror.Mirrors;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.TypeVariable;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.Types;

/** Questions about types and elements that several validators ask. */
public final class TypeInspector {
  /** The handler interface's qualified name, as elements give it. */
  static final String TARGET_HANDLER = TargetHandler.class.getCanonicalName();

  private final Types types;

  public TypeInspector(Types types) {
    this.types = types;
  }

  public Types types() {
    return types;
  }

  /** Whether {@code type} mentions a type javac could not resolve (yet). */
  public boolean containsError(TypeMirror type) {
    if (type == null) {
      return false;
    }
    if (type.getKind() == TypeKind.ERROR) {
      return true;
    }
    if (type instanceof DeclaredType d) {
      for (TypeMirror arg : d.getTypeArguments()) {
        if (containsError(arg)) {
          return true;
        }
      }
      return false;
    }
    if (type instanceof ArrayType a) {
      return containsError(a.getComponentType());
    }
    if (type instanceof WildcardType w) {
      return containsError(w.getExtendsBound()) || containsError(w.getSuperBound());
    }
    return false;
  }

  /** Whether {@code type} is or has a type variable, in a type argument, bound or array. */
  public boolean mentionsTypeVariable(TypeMirror type) {
    if (type == null) {
      return false;
    }
    if (type.getKind() == TypeKind.TYPEVAR) {
      return true;
    }
    if (type instanceof DeclaredType d) {
      return d.getTypeArguments().stream().anyMatch(this::mentionsTypeVariable);
    }
    if (type instanceof ArrayType a) {
      return mentionsTypeVariable(a.getComponentType());
    }
    if (type instanceof WildcardType w) {
      return mentionsTypeVariable(w.getExtendsBound()) || mentionsTypeVariable(w.getSuperBound());
    }
    return false;
  }

  /**
   * The {@code TargetHandler} supertype of {@code type}, with its type arguments as seen from
   * {@code type} (empty list when raw); empty when {@code type} is no handler.
   */
  public Optional<List<TypeMirror>> handlerTypeArguments(TypeMirror type) {
    if (!(type instanceof DeclaredType)) {
      return Optional.empty();
    }
    List<TypeMirror> queue = new ArrayList<>(List.of(type));
    while (!queue.isEmpty()) {
      TypeMirror t = queue.remove(0);
      if (t instanceof DeclaredType d
          && ((TypeElement) d.asElement()).getQualifiedName().contentEquals(TARGET_HANDLER)) {
        return Optional.of(List.copyOf(d.getTypeArguments()));
      }
      queue.addAll(types.directSupertypes(t));
    }
    return Optional.empty();
  }

  /** Whether {@code thrown} is a checked exception type: neither a RuntimeException nor an Error. */
  public boolean isChecked(TypeMirror thrown) {
    TypeMirror t = thrown;
    if (t instanceof TypeVariable v) {
      t = v.getUpperBound();
    }
    while (t instanceof DeclaredType d) {
      String name = ((TypeElement) d.asElement()).getQualifiedName().toString();
      if (name.equals("java.lang.RuntimeException") || name.equals("java.lang.Error")) {
        return false;
      }
      List<? extends TypeMirror> supertypes = types.directSupertypes(t);
      t = supertypes.isEmpty() ? null : supertypes.get(0); // a class's superclass comes first
    }
    return true;
  }

  /**
   * Whether {@code type} is a generic class used without its type arguments ({@code RowHandler}
   * for {@code RowHandler<T>}): its supertypes are erased, so its V, R and A are unknown.
   */
  public boolean isRaw(TypeMirror type) {
    return type instanceof DeclaredType d
        && d.getTypeArguments().isEmpty()
        && !((TypeElement) d.asElement()).getTypeParameters().isEmpty();
  }

  /** A type with no type variables or wildcards anywhere: the engine can serialize by it. */
  public boolean isConcrete(TypeMirror type) {
    if (type.getKind().isPrimitive()) {
      return true;
    }
    if (type instanceof ArrayType a) {
      return isConcrete(a.getComponentType());
    }
    if (type instanceof DeclaredType d) {
      for (TypeMirror arg : d.getTypeArguments()) {
        if (!isConcrete(arg)) {
          return false;
        }
      }
      return d.getTypeArguments().size()
          == ((TypeElement) d.asElement()).getTypeParameters().size();
    }
    return false;
  }

  /** Whether code generated in the element's package can reach it. */
  public static boolean isReachable(Element element) {
    for (Element e = element; e != null && e.getKind() != ElementKind.PACKAGE;
        e = e.getEnclosingElement()) {
      if (e.getModifiers().contains(Modifier.PRIVATE)) {
        return false;
      }
    }
    return true;
  }

  /**
   * A type {@code type} names that code in package {@code from} cannot name.
   *
   * @param named the type as {@code type} names it (itself, a type argument, an array's element)
   * @param offender {@code named} or the class enclosing it that is out of reach
   * @param from the package of the generated code
   */
  public record Unreachable(TypeElement named, TypeElement offender, PackageElement from) {
    /** What is wrong with {@link #offender}: {@code private}, {@code protected, in package b}. */
    public String why() {
      Set<Modifier> m = offender.getModifiers();
      if (m.contains(Modifier.PRIVATE)) {
        return "private";
      }
      return (m.contains(Modifier.PROTECTED) ? "protected" : "package-private") + ", in "
          + describe(packageOf(offender));
    }

    /**
     * Whether {@link #named} is a private record with a codec annotation, whose own COCO-014 says
     * what to do: one mistake, one error.
     */
    public boolean reportedOnItself() {
      return !isReachable(named)
          && AnnotationNames.CODEC_ANNOTATIONS.stream().anyMatch(a -> Mirrors.has(named, a));
    }

    /** How to fix {@link #offender}. */
    public String fix() {
      return offender.getModifiers().contains(Modifier.PRIVATE)
          ? "package-private or public"
          : "public";
    }

    /** {@code package a.b}, or {@code the unnamed package}. */
    public static String describe(PackageElement p) {
      return p.isUnnamed() ? "the unnamed package" : "package " + p.getQualifiedName();
    }
  }

  /**
   * The first type {@code type} names (itself, its type arguments, an array's elements, and the
   * classes enclosing each) that code generated in package {@code from} cannot name: a private
   * one, or one neither public nor in {@code from}; empty when it can name them all.
   */
  public static Optional<Unreachable> unreachableFrom(TypeMirror type, PackageElement from) {
    if (type instanceof ArrayType a) {
      return unreachableFrom(a.getComponentType(), from);
    }
    if (type instanceof WildcardType w) {
      return w.getExtendsBound() != null
          ? unreachableFrom(w.getExtendsBound(), from)
          : w.getSuperBound() != null ? unreachableFrom(w.getSuperBound(), from) : Optional.empty();
    }
    if (!(type instanceof DeclaredType d)) {
      return Optional.empty();
    }
    TypeElement named = (TypeElement) d.asElement();
    for (Element e = named; e instanceof TypeElement t; e = e.getEnclosingElement()) {
      Set<Modifier> m = t.getModifiers();
      if (m.contains(Modifier.PRIVATE)
          || (!m.contains(Modifier.PUBLIC)
              && !packageOf(t).getQualifiedName().equals(from.getQualifiedName()))) {
        return Optional.of(new Unreachable(named, t, from));
      }
    }
    for (TypeMirror arg : d.getTypeArguments()) {
      Optional<Unreachable> u = unreachableFrom(arg, from);
      if (u.isPresent()) {
        return u;
      }
    }
    return Optional.empty();
  }

  /**
   * The arguments of {@code Message.INACCESSIBLE_TYPE} for {@code method}, an {@code annotation}
   * method that {@code type} inherits and that the code generated beside {@code type} calls,
   * when that code cannot: the method is neither public nor declared in {@code type}'s package.
   * Empty when it can.
   */
  public static Optional<Object[]> inheritedOutOfReach(
      TypeElement type, ExecutableElement method, String annotation) {
    PackageElement pkg = packageOf(type);
    PackageElement declaredIn = packageOf(method);
    if (method.getModifiers().contains(Modifier.PUBLIC)
        || declaredIn.getQualifiedName().equals(pkg.getQualifiedName())) {
      return Optional.empty();
    }
    String name = ((TypeElement) method.getEnclosingElement()).getQualifiedName() + "."
        + method.getSimpleName() + "()";
    return Optional.of(new Object[] {
        type.getQualifiedName() + " inherits " + annotation + " " + name,
        Unreachable.describe(pkg),
        name,
        (method.getModifiers().contains(Modifier.PROTECTED) ? "protected" : "package-private")
            + ", in " + Unreachable.describe(declaredIn),
        "public"});
  }

  /** The package {@code element} is in. */
  public static PackageElement packageOf(Element element) {
    Element e = element;
    while (!(e instanceof PackageElement)) {
      e = e.getEnclosingElement();
    }
    return (PackageElement) e;
  }

  /** Whether {@code element} and every class enclosing it are public. */
  public static boolean isPublic(Element element) {
    for (Element e = element; e != null && e.getKind() != ElementKind.PACKAGE;
        e = e.getEnclosingElement()) {
      if (!e.getModifiers().contains(Modifier.PUBLIC)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Where to report a diagnostic about a record component: javac gives record components no
   * source position, while the record's private field of the same name points at the component.
   */
  public static Element positionOf(Element component) {
    if (component.getKind() != ElementKind.RECORD_COMPONENT) {
      return component;
    }
    for (Element e : component.getEnclosingElement().getEnclosedElements()) {
      if (e.getKind() == ElementKind.FIELD && e.getSimpleName().equals(component.getSimpleName())) {
        return e;
      }
    }
    return component;
  }

  /**
   * {@code type} as generated code names a parameter that takes any instance of it: the class
   * itself, or {@code Handler<?>} for a generic one (with its generic enclosing class's type
   * arguments wildcards too, for an inner class). The raw type would erase the types of its
   * methods, and {@code Map.ofEntries} of the raw attachment handlers they return does not
   * compile.
   */
  public static TypeName anyInstanceOf(TypeElement type) {
    TypeName[] wildcards = type.getTypeParameters().stream()
        .map(p -> WildcardTypeName.subtypeOf(Object.class))
        .toArray(TypeName[]::new);
    if (type.getEnclosingElement() instanceof TypeElement outer
        && !type.getModifiers().contains(Modifier.STATIC)
        && type.getKind() == ElementKind.CLASS
        && anyInstanceOf(outer) instanceof ParameterizedTypeName owner) {
      return owner.nestedClass(type.getSimpleName().toString(), List.of(wildcards));
    }
    ClassName name = ClassName.get(type);
    return wildcards.length == 0 ? name : ParameterizedTypeName.get(name, wildcards);
  }

  /** The generated sibling class {@code Outer_Inner_<suffix>} of {@code type}. */
  public static ClassName sibling(TypeElement type, String suffix) {
    ClassName name = ClassName.get(type);
    return ClassName.get(name.packageName(), String.join("_", name.simpleNames()) + "_" + suffix);
  }

}
