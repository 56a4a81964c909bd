package io.cocoindex.processor.model;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The serialized shape of a record component's type: what its generated codec code does. */
public sealed interface ValueType {

  /** The Java type, as written in generated code. */
  TypeName typeName();

  /** The Java primitive types, and how each travels. */
  enum PrimitiveKind {
    BOOLEAN(TypeName.BOOLEAN),
    BYTE(TypeName.BYTE),
    SHORT(TypeName.SHORT),
    INT(TypeName.INT),
    LONG(TypeName.LONG),
    FLOAT(TypeName.FLOAT),
    DOUBLE(TypeName.DOUBLE),
    CHAR(TypeName.CHAR);

    private final TypeName primitive;

    PrimitiveKind(TypeName primitive) {
      this.primitive = primitive;
    }

    public TypeName primitive() {
      return primitive;
    }
  }

  /** Reference scalars with a dedicated reader and writer method. */
  enum ScalarKind {
    STRING(ClassName.get(String.class), "String"),
    BYTES(TypeName.get(byte[].class), "Bytes"),
    UUID(ClassName.get(java.util.UUID.class), "Uuid"),
    FINGERPRINT(ClassName.get(Fingerprint.class), "Fingerprint"),
    STABLE_KEY(ClassName.get(StableKey.class), "StableKey");

    private final TypeName type;
    private final String method;

    ScalarKind(TypeName type, String method) {
      this.type = type;
      this.method = method;
    }

    public TypeName type() {
      return type;
    }

    /** The suffix of the {@code writeX}/{@code readX} methods. */
    public String method() {
      return method;
    }
  }

  /** A primitive: never null, default zero. */
  record Primitive(PrimitiveKind kind) implements ValueType {
    @Override
    public TypeName typeName() {
      return kind.primitive();
    }
  }

  /** A boxed primitive: nullable. */
  record Boxed(PrimitiveKind kind) implements ValueType {
    @Override
    public TypeName typeName() {
      return kind.primitive().box();
    }
  }

  /** A reference scalar: nullable. */
  record Scalar(ScalarKind kind) implements ValueType {
    @Override
    public TypeName typeName() {
      return kind.type();
    }
  }

  /** An enum, stored by constant name. */
  record EnumRef(ClassName type) implements ValueType {
    @Override
    public TypeName typeName() {
      return type;
    }
  }

  /** A record with a generated codec. */
  record RecordRef(ClassName type, ClassName codec) implements ValueType {
    @Override
    public TypeName typeName() {
      return type;
    }
  }

  /** A {@code List}, in order. */
  record ListOf(ValueType element) implements ValueType {
    @Override
    public TypeName typeName() {
      return ParameterizedTypeName.get(ClassName.get(List.class), element.typeName());
    }
  }

  /** A {@code Set} of naturally ordered elements, stored sorted. */
  record SetOf(ValueType element) implements ValueType {
    @Override
    public TypeName typeName() {
      return ParameterizedTypeName.get(ClassName.get(Set.class), element.typeName());
    }
  }

  /** A {@code Map} with String keys, stored as an object sorted by key. */
  record MapOf(ValueType value) implements ValueType {
    @Override
    public TypeName typeName() {
      return ParameterizedTypeName.get(
          ClassName.get(Map.class), ClassName.get(String.class), value.typeName());
    }
  }

  /** An {@code Optional}, stored as its value or null. */
  record OptionalOf(ValueType value) implements ValueType {
    @Override
    public TypeName typeName() {
      return ParameterizedTypeName.get(ClassName.get(Optional.class), value.typeName());
    }
  }
}
