package io.cocoindex.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static io.cocoindex.processor.Fixtures.compile;
import static io.cocoindex.processor.Fixtures.source;

import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * Connectors written in unusual but legal Java: each compiles, the generated code included, with
 * every lint warning an error.
 */
class UnusualShapesTest {
  private static final String IMPORTS =
      "import io.cocoindex.*; import io.cocoindex.annotation.*; import java.util.*;";

  private static String reconcile(String v, String r, String a) {
    return "  public TargetReconcileOutput<" + a + ", " + r + "> reconcile(StableKey key, " + v
        + " desired, List<" + r + "> prev, boolean mbm) { return null; }";
  }

  @Test
  void typesOfThePackageNamedLikeJavaLangTypes() {
    // The package's own String, Integer, Class and Override are what those simple names mean in
    // the files generated beside them.
    JavaFileObject row = source("Row", "package test;",
        "@io.cocoindex.annotation.TargetValue",
        "public record Row(@io.cocoindex.annotation.Key java.lang.String id, java.lang.Integer n,",
        "    java.lang.Character c, java.util.List<java.lang.String> tags) {}");
    JavaFileObject handler = source("RowHandler", "package test;", IMPORTS,
        "@RootTarget(provider = \"p\", name = \"Row\")",
        "public class RowHandler implements TargetHandler<Row, Row, Row> {",
        "  @Attachment(\"self\") RowHandler self() { return this; }",
        "  @java.lang.Override",
        "  public Map<java.lang.String, ChildTargetDef<?>> attachments() {",
        "    return RowHandler_Attachments.of(this);",
        "  }",
        reconcile("Row", "Row", "Row"),
        "}");
    assertThat(compile(row, handler,
            source("String", "package test;", "public final class String {}"),
            source("Integer", "package test;", "public final class Integer {}"),
            source("Class", "package test;", "public final class Class {}"),
            source("Override", "package test;",
                "@java.lang.annotation.Target(java.lang.annotation.ElementType.TYPE)",
                "public @interface Override {}")))
        .succeededWithoutWarnings();
  }
}
