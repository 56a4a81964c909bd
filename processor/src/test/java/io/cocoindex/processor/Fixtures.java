package io.cocoindex.processor;

import static com.google.testing.compile.Compiler.javac;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.util.List;
import javax.tools.JavaFileObject;

/** Sources and compilation for the processor tests. */
final class Fixtures {
  private Fixtures() {}

  /** The connector of {@code src/test/resources/fixtures/test}: every generated kind of file. */
  static final List<String> CONNECTOR =
      List.of(
          "Row",
          "RowAction",
          "IndexSpec",
          "TableSpec",
          "TableAction",
          "TableRecord",
          "IndexHandler",
          "RowHandler",
          "TableHandler",
          "DocumentHandler",
          "Usage");

  static List<JavaFileObject> connector() {
    return CONNECTOR.stream()
        .map(n -> JavaFileObjects.forResource("fixtures/test/" + n + ".java"))
        .toList();
  }

  /** A source file {@code test/<name>.java} from lines. */
  static JavaFileObject source(String name, String... lines) {
    return JavaFileObjects.forSourceLines("test." + name, lines);
  }

  static Compilation compile(JavaFileObject... sources) {
    return compile(List.of(sources));
  }

  /** Compiles with every lint warning an error, as a strict connector build would. */
  static Compilation compile(List<JavaFileObject> sources) {
    return javac()
        .withProcessors(new CocoIndexProcessor())
        .withOptions("-Xlint:all,-processing", "-Werror")
        .compile(sources);
  }
}
