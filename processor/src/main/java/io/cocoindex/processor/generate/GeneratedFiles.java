package io.cocoindex.processor.generate;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.TypeSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.annotation.processing.Filer;

/** What every generated file carries, and writing it. */
public final class GeneratedFiles {
  private GeneratedFiles() {}

  /** The value of {@code @Generated}: no date, so builds stay reproducible and cacheable. */
  public static final String GENERATOR = "io.cocoindex.processor.CocoIndexProcessor";

  private static final ClassName GENERATED =
      ClassName.get("javax.annotation.processing", "Generated");

  /** {@code @Generated} and the fixed {@code @SuppressWarnings} set. */
  public static TypeSpec.Builder annotate(TypeSpec.Builder type) {
    return type.addAnnotation(
            AnnotationSpec.builder(GENERATED).addMember("value", "$S", GENERATOR).build())
        .addAnnotation(
            AnnotationSpec.builder(SuppressWarnings.class)
                .addMember("value", "{$S, $S}", "unchecked", "rawtypes")
                .build());
  }

  public static JavaFile file(String packageName, TypeSpec type) {
    return JavaFile.builder(packageName, type).skipJavaLangImports(true).indent("  ").build();
  }

  public static void write(Filer filer, JavaFile file) {
    try {
      file.writeTo(filer);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
