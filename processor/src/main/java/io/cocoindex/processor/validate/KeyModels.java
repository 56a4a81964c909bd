package io.cocoindex.processor.validate;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.processor.mirror.AnnotationNames;
import io.cocoindex.processor.mirror.Mirrors;
import io.cocoindex.processor.model.KeyModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.RecordComponentElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/** The {@code @Key} components of values, and which types a key component may have. */
public final class KeyModels {
  private KeyModels() {}

  private static final Set<TypeKind> PRIMITIVES =
      Set.of(TypeKind.LONG, TypeKind.INT, TypeKind.SHORT, TypeKind.BYTE, TypeKind.BOOLEAN);

  private static final Set<String> REFERENCES =
      Set.of(
          String.class.getName(),
          Long.class.getName(),
          Integer.class.getName(),
          Short.class.getName(),
          Byte.class.getName(),
          Boolean.class.getName(),
          UUID.class.getName(),
          Fingerprint.class.getName(),
          StableKey.class.getName());

  /** Whether {@code StableKey.of} accepts values of {@code type}. */
  public static boolean isKeyType(TypeMirror type) {
    if (PRIMITIVES.contains(type.getKind())) {
      return true;
    }
    if (type instanceof ArrayType a) {
      return a.getComponentType().getKind() == TypeKind.BYTE;
    }
    return type instanceof DeclaredType d
        && REFERENCES.contains(((TypeElement) d.asElement()).getQualifiedName().toString());
  }

  /** The key of a declared value of {@code valueType}: its {@code @Key} components, if any. */
  public static KeyModel of(TypeMirror valueType) {
    if (!(valueType instanceof DeclaredType d)) {
      return KeyModel.explicit();
    }
    TypeElement element = (TypeElement) d.asElement();
    if (element.getKind() != ElementKind.RECORD
        || !Mirrors.has(element, AnnotationNames.TARGET_VALUE)) {
      return KeyModel.explicit();
    }
    List<String> accessors = new ArrayList<>();
    for (RecordComponentElement c : element.getRecordComponents()) {
      if (Mirrors.has(c, AnnotationNames.KEY)) {
        accessors.add(c.getSimpleName().toString());
      }
    }
    return new KeyModel(accessors);
  }
}
