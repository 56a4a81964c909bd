package io.cocoindex.processor.validate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.WildcardTypeName;
import io.cocoindex.TargetHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.Modifier;
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
