package io.cocoindex.processor.generate;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.TypeSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Set;
import javax.annotation.processing.Filer;
import javax.lang.model.element.Element;
import javax.tools.JavaFileObject;

/** What every generated file carries, and writing it. */
public final class GeneratedFiles {
  private GeneratedFiles() {}

  /** The value of {@code @Generated}: no date, so builds stay reproducible and cacheable. */
  public static final String GENERATOR = "io.cocoindex.processor.CocoIndexProcessor";

  private static final ClassName GENERATED =
      ClassName.get("javax.annotation.processing", "Generated");

  public static JavaFile file(String packageName, TypeSpec type) {
    return JavaFile.builder(packageName, type).skipJavaLangImports(true).indent("  ").build();
  }

  /**
   * What a generator's {@code file} needs from where it is generated, added once its model is
   * built: {@code @Generated} (unless {@code generated} is false: the code's module does not read
   * {@code java.compiler}, which declares it), the fixed {@code @SuppressWarnings} set (besides
   * the raw and unchecked uses generic handlers need, the deprecation of a record, handler or
   * method the connector deprecated, which the generated code has to name still), and the
   * {@code java.lang} types named {@code shadowed} written by their qualified names: a type of
   * the file's package with one of these names ({@code String}, {@code Integer}, {@code Class})
   * would otherwise be what the simple name means there, and JavaPoet knows only the types the
   * file itself mentions.
   */
  public static JavaFile finish(JavaFile file, Set<String> shadowed, boolean generated) {
    TypeSpec.Builder type = file.typeSpec().toBuilder();
    if (generated) {
      type.addAnnotation(
          AnnotationSpec.builder(GENERATED).addMember("value", "$S", GENERATOR).build());
    }
    type.addAnnotation(
        AnnotationSpec.builder(SuppressWarnings.class)
            .addMember(
                "value", "{$S, $S, $S, $S}", "unchecked", "rawtypes", "deprecation", "removal")
            .build());
    if (!shadowed.isEmpty()) {
      type.alwaysQualify(shadowed.toArray(String[]::new));
    }
    return file(file.packageName(), type.build());
  }

  /** The qualified name of the type {@code file} declares. */
  static String qualifiedName(JavaFile file) {
    return file.packageName().isEmpty()
        ? file.typeSpec().name()
        : file.packageName() + "." + file.typeSpec().name();
  }

  /**
   * Writes {@code file}, rendered as {@code text}, through {@code filer}, its originating elements
   * attached, in one call: rendering straight into the Filer's writer passed every token through
   * the writer's lock and encoder.
   */
  static void write(Filer filer, JavaFile file, String text) {
    TypeSpec type = file.typeSpec();
    String name = qualifiedName(file);
    try {
      JavaFileObject source =
          filer.createSourceFile(name, type.originatingElements().toArray(new Element[0]));
      try (Writer out = source.openWriter()) {
        out.write(text);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing the generated " + name, e);
    }
  }
}
