package io.cocoindex.processor.generate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeSpec;
import io.cocoindex.codec.FieldNames;
import io.cocoindex.codec.GeneratedCodec;
import io.cocoindex.codec.GeneratedCodecs;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.codec.ValueWriter;
import io.cocoindex.processor.model.CodecModel;
import io.cocoindex.processor.model.ComponentModel;
import io.cocoindex.processor.model.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.lang.model.element.Modifier;

/**
 * Generates {@code Outer_Inner_Codec}: a record written as an object of its components in
 * declaration order, read back by field name so a component added later reads as its default.
 */
public final class CodecGenerator {
  private static final ClassName CODECS = ClassName.get(GeneratedCodecs.class);

  public JavaFile generate(CodecModel model) {
    ClassName record = model.record();
    TypeSpec.Builder type =
        TypeSpec.classBuilder(model.codec())
            .addOriginatingElement(model.origin())
            .addJavadoc("The generated codec of {@link $T}.\n", record)
            .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
            .addSuperinterface(ParameterizedTypeName.get(ClassName.get(GeneratedCodec.class), record))
            .addField(fieldNames(model))
            .addField(
                FieldSpec.builder(
                        model.codec(), "INSTANCE", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                    .addJavadoc("The codec; it holds no state.\n")
                    .initializer("new $T()", model.codec())
                    .build())
            .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build())
            .addMethod(
                MethodSpec.methodBuilder("type")
                    .addAnnotation(Override.class)
                    .addModifiers(Modifier.PUBLIC)
                    .returns(ParameterizedTypeName.get(ClassName.get(Class.class), record))
                    .addStatement("return $T.class", record)
                    .build())
            .addMethod(write(model))
            .addMethod(read(model))
            .addMethod(
                MethodSpec.methodBuilder("copiesDirectly")
                    .addAnnotation(Override.class)
                    .addModifiers(Modifier.PUBLIC)
                    .returns(boolean.class)
                    .addStatement("return true")
                    .build())
            .addMethod(copy(model));
    return GeneratedFiles.file(record.packageName(), type.build());
  }

  /** The record's field names, encoded once for the reader and writer to match and copy. */
  private FieldSpec fieldNames(CodecModel model) {
    CodeBlock.Builder init = CodeBlock.builder()
        .add("new $T($S", FieldNames.class, model.record().canonicalName());
    for (ComponentModel c : model.components()) {
      init.add(", $S", c.name());
    }
    return FieldSpec.builder(
            FieldNames.class, "FIELDS", Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
        .initializer(init.add(")").build())
        .build();
  }

  private MethodSpec write(CodecModel model) {
    MethodSpec.Builder m =
        MethodSpec.methodBuilder("write")
            .addAnnotation(Override.class)
            .addModifiers(Modifier.PUBLIC)
            .addParameter(ValueWriter.class, "out")
            .addParameter(model.record(), "value")
            .beginControlFlow("if (value == null)")
            .addStatement("out.writeNull()")
            .addStatement("return")
            .endControlFlow()
            .addStatement("out.beginObject()");
    List<? extends ComponentModel> components = model.components();
    for (int i = 0; i < components.size(); i++) {
      ComponentModel c = components.get(i);
      m.addStatement("out.field(FIELDS, $L)", i);
      m.addStatement(writeCall(c.type(), "out", CodeBlock.of("value.$N()", c.name()), 1));
    }
    return m.addStatement("out.endObject()").build();
  }

  private MethodSpec read(CodecModel model) {
    MethodSpec.Builder m =
        MethodSpec.methodBuilder("read")
            .addAnnotation(Override.class)
            .addModifiers(Modifier.PUBLIC)
            .returns(model.record())
            .addParameter(ValueReader.class, "in")
            .beginControlFlow("if (in.readNull())")
            .addStatement("return null")
            .endControlFlow();
    for (ComponentModel c : model.components()) {
      m.addStatement("$T $N = $L", c.type().typeName(), local(c), defaultValue(c.type()));
    }
    // nextField(FIELDS) matches the stored name and fails on one the record does not have.
    m.addStatement("in.beginObject()")
        .beginControlFlow(
            "for (int field = in.nextField(FIELDS); field != $T.END; field = in.nextField(FIELDS))",
            FieldNames.class)
        .beginControlFlow("switch (field)");
    List<? extends ComponentModel> components = model.components();
    for (int i = 0; i < components.size(); i++) {
      ComponentModel c = components.get(i);
      m.addCode("case $L: // $L\n", i, c.name())
          .addStatement("$>$N = $L", local(c), readExpr(c.type(), "in", 1))
          .addStatement("break$<");
    }
    m.endControlFlow().endControlFlow();
    CodeBlock args =
        model.components().stream()
            .map(c -> CodeBlock.of("$N", local(c)))
            .collect(CodeBlock.joining(", "));
    return m.addStatement("return new $T($L)", model.record(), args).build();
  }

  /**
   * A deep copy, component by component, as reading back what write() writes would give; the
   * value itself when every component copies as itself (nothing in it can change: a record is
   * shallowly immutable, and the helpers return a part as it is only when it is immutable too).
   * Declared values are copied once each, and most are immutable already.
   */
  private MethodSpec copy(CodecModel model) {
    MethodSpec.Builder m = MethodSpec.methodBuilder("copy")
        .addAnnotation(Override.class)
        .addModifiers(Modifier.PUBLIC)
        .returns(model.record())
        .addParameter(model.record(), "value")
        .beginControlFlow("if (value == null)")
        .addStatement("return null")
        .endControlFlow();
    List<CodeBlock> sameAsBefore = new ArrayList<>();
    List<CodeBlock> args = new ArrayList<>();
    for (ComponentModel c : model.components()) {
      CodeBlock read = CodeBlock.of("value.$N()", c.name());
      if (keptAsIs(c.type())) {
        args.add(read);
        continue;
      }
      CodeBlock check = checkCall(c.type(), read);
      if (check != null) {
        m.addStatement(check);
        args.add(read);
        continue;
      }
      String before = "o" + local(c);
      m.addStatement("$T $N = $L", c.type().typeName(), before, read);
      m.addStatement("$T $N = $L", c.type().typeName(), local(c),
          copyExpr(c.type(), CodeBlock.of("$N", before), 1));
      sameAsBefore.add(CodeBlock.of("$N == $N", local(c), before));
      args.add(CodeBlock.of("$N", local(c)));
    }
    if (sameAsBefore.isEmpty()) {
      return m.addStatement("return value").build();
    }
    return m.beginControlFlow("if ($L)", CodeBlock.join(sameAsBefore, " && "))
        .addStatement("return value")
        .endControlFlow()
        .addStatement("return new $T($>$>\n$L$<$<)", model.record(),
            CodeBlock.join(args, ",\n"))
        .build();
  }

  /**
   * The check of an immutable component that writing could refuse (a string or char holding an
   * unpaired surrogate), which a copy keeps once checked; null for any other type.
   */
  private static CodeBlock checkCall(ValueType t, CodeBlock expr) {
    boolean isChar = t instanceof ValueType.Primitive p && p.kind() == ValueType.PrimitiveKind.CHAR;
    if (isChar) {
      return CodeBlock.of("$T.checkChar($L)", CODECS, expr);
    }
    if (t instanceof ValueType.Boxed b && b.kind() == ValueType.PrimitiveKind.CHAR) {
      return CodeBlock.of("$T.checkCharacter($L)", CODECS, expr);
    }
    if (t instanceof ValueType.Scalar s && s.kind() == ValueType.ScalarKind.STRING) {
      return CodeBlock.of("$T.checkString($L)", CODECS, expr);
    }
    return null;
  }

  /** Whether a component of type {@code t} is immutable and needs no check: a copy keeps it. */
  private static boolean keptAsIs(ValueType t) {
    if (t instanceof ValueType.Primitive p) {
      return p.kind() != ValueType.PrimitiveKind.CHAR;
    }
    if (t instanceof ValueType.Boxed b) {
      return b.kind() != ValueType.PrimitiveKind.CHAR;
    }
    if (t instanceof ValueType.Scalar s) {
      return s.kind() != ValueType.ScalarKind.STRING && s.kind() != ValueType.ScalarKind.BYTES;
    }
    return t instanceof ValueType.EnumRef;
  }

  /** An expression copying {@code expr} of type {@code t}; immutable leaves are kept as they are. */
  private CodeBlock copyExpr(ValueType t, CodeBlock expr, int depth) {
    if (t instanceof ValueType.Primitive p) {
      return p.kind() == ValueType.PrimitiveKind.CHAR
          ? CodeBlock.of("$T.copyChar($L)", CODECS, expr)
          : expr;
    }
    if (t instanceof ValueType.Boxed b) {
      return b.kind() == ValueType.PrimitiveKind.CHAR
          ? CodeBlock.of("$T.copyCharacter($L)", CODECS, expr)
          : expr;
    }
    if (t instanceof ValueType.Scalar s) {
      return switch (s.kind()) {
        case STRING -> CodeBlock.of("$T.copyString($L)", CODECS, expr);
        case BYTES -> CodeBlock.of("$T.copyBytes($L)", CODECS, expr);
        case UUID, FINGERPRINT, STABLE_KEY -> expr;
      };
    }
    if (t instanceof ValueType.EnumRef) {
      return expr;
    }
    if (t instanceof ValueType.RecordRef r) {
      return CodeBlock.of("$T.INSTANCE.copy($L)", r.codec(), expr);
    }
    if (t instanceof ValueType.ListOf l) {
      return CodeBlock.of("$T.copyList($L, $L$L)", CODECS, expr, copyFn(l.element(), depth),
          whenNull(l.element()));
    }
    if (t instanceof ValueType.SetOf s) {
      return CodeBlock.of("$T.copySet($L, $L)", CODECS, expr, copyFn(s.element(), depth));
    }
    if (t instanceof ValueType.MapOf m) {
      return CodeBlock.of("$T.copyMap($L, $L$L)", CODECS, expr, copyFn(m.value(), depth),
          whenNull(m.value()));
    }
    ValueType.OptionalOf o = (ValueType.OptionalOf) t;
    return CodeBlock.of("$T.copyOptional($L, $L)", CODECS, expr, copyFn(o.value(), depth));
  }

  /** A {@code Function<T, T>} copying a non-null {@code t}: the collection helpers keep nulls. */
  private CodeBlock copyFn(ValueType t, int depth) {
    String v = "v" + depth;
    return CodeBlock.of("$N -> $L", v, copyExpr(t, CodeBlock.of("$N", v), depth + 1));
  }

  /** Locals are prefixed so a component named like a parameter ({@code in}) cannot clash. */
  private static String local(ComponentModel c) {
    return "_" + c.name();
  }

  private static CodeBlock defaultValue(ValueType t) {
    if (t instanceof ValueType.Primitive p) {
      return switch (p.kind()) {
        case BOOLEAN -> CodeBlock.of("false");
        case CHAR -> CodeBlock.of("'\\0'");
        case LONG -> CodeBlock.of("0L");
        case FLOAT -> CodeBlock.of("0f");
        case DOUBLE -> CodeBlock.of("0d");
        case BYTE -> CodeBlock.of("(byte) 0");
        case SHORT -> CodeBlock.of("(short) 0");
        case INT -> CodeBlock.of("0");
      };
    }
    if (t instanceof ValueType.ListOf) {
      return CodeBlock.of("$T.of()", List.class);
    }
    if (t instanceof ValueType.SetOf) {
      return CodeBlock.of("$T.of()", Set.class);
    }
    if (t instanceof ValueType.MapOf) {
      return CodeBlock.of("$T.of()", Map.class);
    }
    if (t instanceof ValueType.OptionalOf) {
      return CodeBlock.of("$T.empty()", Optional.class);
    }
    return CodeBlock.of("null");
  }

  /** A statement writing {@code expr} of type {@code t} to {@code out}. */
  private CodeBlock writeCall(ValueType t, String out, CodeBlock expr, int depth) {
    if (t instanceof ValueType.Primitive p) {
      return switch (p.kind()) {
        case BOOLEAN -> CodeBlock.of("$N.writeBoolean($L)", out, expr);
        case BYTE, SHORT, INT -> CodeBlock.of("$N.writeInt($L)", out, expr);
        case LONG -> CodeBlock.of("$N.writeLong($L)", out, expr);
        case FLOAT -> CodeBlock.of("$N.writeFloat($L)", out, expr);
        case DOUBLE -> CodeBlock.of("$N.writeDouble($L)", out, expr);
        case CHAR -> CodeBlock.of("$T.writeChar($N, $L)", CODECS, out, expr);
      };
    }
    if (t instanceof ValueType.Boxed b) {
      return CodeBlock.of(
          "$T.writeNullable($N, $L, $L)",
          CODECS,
          out,
          expr,
          writeFn(new ValueType.Primitive(b.kind()), depth));
    }
    if (t instanceof ValueType.Scalar s) {
      return CodeBlock.of("$N.write$L($L)", out, s.kind().method(), expr);
    }
    if (t instanceof ValueType.EnumRef) {
      return CodeBlock.of("$T.writeEnum($N, $L)", CODECS, out, expr);
    }
    if (t instanceof ValueType.RecordRef r) {
      return CodeBlock.of("$T.INSTANCE.write($N, $L)", r.codec(), out, expr);
    }
    if (t instanceof ValueType.ListOf l) {
      return CodeBlock.of(
          "$T.writeList($N, $L, $L)", CODECS, out, expr, writeFn(l.element(), depth));
    }
    if (t instanceof ValueType.SetOf s) {
      return CodeBlock.of(
          "$T.writeSet($N, $L, $L)", CODECS, out, expr, writeFn(s.element(), depth));
    }
    if (t instanceof ValueType.MapOf m) {
      return CodeBlock.of("$T.writeMap($N, $L, $L)", CODECS, out, expr, writeFn(m.value(), depth));
    }
    ValueType.OptionalOf o = (ValueType.OptionalOf) t;
    return CodeBlock.of(
        "$T.writeOptional($N, $L, $L)", CODECS, out, expr, writeFn(o.value(), depth));
  }

  /**
   * A {@code BiConsumer<ValueWriter, T>} writing a non-null {@code t}: the collection helpers
   * write nulls themselves.
   */
  private CodeBlock writeFn(ValueType t, int depth) {
    if (t instanceof ValueType.Boxed b) {
      return writeFn(new ValueType.Primitive(b.kind()), depth);
    }
    String out = "o" + depth;
    String v = "v" + depth;
    return CodeBlock.of(
        "($N, $N) -> $L", out, v, writeCall(t, out, CodeBlock.of("$N", v), depth + 1));
  }

  /**
   * The argument giving what a stored null element of type {@code t} reads as, when not null: an
   * optional is written as null when empty, so a list's or map's null reads as an empty one.
   */
  private static CodeBlock whenNull(ValueType t) {
    return t instanceof ValueType.OptionalOf
        ? CodeBlock.of(", $T.empty()", Optional.class)
        : CodeBlock.of("");
  }

  /** An expression reading a {@code t} from {@code in}. */
  private CodeBlock readExpr(ValueType t, String in, int depth) {
    if (t instanceof ValueType.Primitive p) {
      return switch (p.kind()) {
        case BOOLEAN -> CodeBlock.of("$N.readBoolean()", in);
        case BYTE -> CodeBlock.of("(byte) $N.readInt()", in);
        case SHORT -> CodeBlock.of("(short) $N.readInt()", in);
        case INT -> CodeBlock.of("$N.readInt()", in);
        case LONG -> CodeBlock.of("$N.readLong()", in);
        case FLOAT -> CodeBlock.of("$N.readFloat()", in);
        case DOUBLE -> CodeBlock.of("$N.readDouble()", in);
        case CHAR -> CodeBlock.of("$T.readChar($N)", CODECS, in);
      };
    }
    if (t instanceof ValueType.Boxed b) {
      return CodeBlock.of(
          "$T.readNullable($N, $L)", CODECS, in, readFn(new ValueType.Primitive(b.kind()), depth));
    }
    if (t instanceof ValueType.Scalar s) {
      return CodeBlock.of("$N.read$L()", in, s.kind().method());
    }
    if (t instanceof ValueType.EnumRef e) {
      return CodeBlock.of(
          "$T.readEnum($N, $T::valueOf, $S)", CODECS, in, e.type(), e.type().canonicalName());
    }
    if (t instanceof ValueType.RecordRef r) {
      return CodeBlock.of("$T.INSTANCE.read($N)", r.codec(), in);
    }
    if (t instanceof ValueType.ListOf l) {
      return CodeBlock.of(
          "$T.readList($N, $L$L)", CODECS, in, readFn(l.element(), depth), whenNull(l.element()));
    }
    if (t instanceof ValueType.SetOf s) {
      return CodeBlock.of("$T.readSet($N, $L)", CODECS, in, readFn(s.element(), depth));
    }
    if (t instanceof ValueType.MapOf m) {
      return CodeBlock.of(
          "$T.readMap($N, $L$L)", CODECS, in, readFn(m.value(), depth), whenNull(m.value()));
    }
    ValueType.OptionalOf o = (ValueType.OptionalOf) t;
    return CodeBlock.of("$T.readOptional($N, $L)", CODECS, in, readFn(o.value(), depth));
  }

  /**
   * A {@code Function<ValueReader, T>} reading a non-null {@code t}, boxed for primitives: the
   * collection helpers read nulls themselves.
   */
  private CodeBlock readFn(ValueType t, int depth) {
    if (t instanceof ValueType.Boxed b) {
      return readFn(new ValueType.Primitive(b.kind()), depth);
    }
    String in = "i" + depth;
    CodeBlock read = readExpr(t, in, depth + 1);
    if (t instanceof ValueType.Primitive p) {
      // Box explicitly: a lambda returning (byte) in.readInt() must still produce a Byte.
      return CodeBlock.of("$N -> $T.valueOf($L)", in, p.kind().primitive().box(), read);
    }
    return CodeBlock.of("$N -> $L", in, read);
  }
}
