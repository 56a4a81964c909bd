package io.cocoindex.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The before/after comparison runs two separately loaded builds and prints every run kind. */
class CompareSmokeTest {

  @Test
  void comparesTwoLoadsOfTheSameBuild(@TempDir Path dir) throws Exception {
    List<Path> classpath = Arrays.stream(System.getProperty("java.class.path")
        .split(File.pathSeparator)).map(Path::of).toList();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    Compare.compare(classpath, classpath, 1_000, 3, dir, out);

    String printed = bytes.toString(StandardCharsets.UTF_8);
    System.out.println(printed);
    assertThat(printed).contains("N=1,000, 1 measured rounds");
    for (String run : List.of("cold", "warm", "memo warm", "scattered 1%", "revision memo",
        "revision 1%")) {
      assertThat(printed).containsPattern("(?m)^" + run + " +\\d+\\.\\d{2,3} / \\d+\\.\\d{2,3} +"
          + "\\d+\\.\\d{2,3} / \\d+\\.\\d{2,3} +\\d+\\.\\d\\dx$");
    }
    // Only the sites rerun each round are kept between rounds (no cold site is left behind).
    assertThat(dir.toFile().list()).allMatch(n -> n.contains("warm") || n.contains("memo")
        || n.contains("scatter") || n.contains("revision") || n.contains("change"));
  }

  @Test
  void bothOrdersCompareInTwoFreshJvmsAndPrintTheGeometricMean() throws Exception {
    List<Path> classpath = Arrays.stream(System.getProperty("java.class.path")
        .split(File.pathSeparator)).map(Path::of).toList();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    Compare.bothOrders(classpath, classpath, 1_000, 3, out);

    String printed = bytes.toString(StandardCharsets.UTF_8);
    System.out.println(printed);
    for (String label : List.of("[before first] ", "[after first] ")) {
      assertThat(printed).contains(label + "N=1,000, 1 measured rounds");
    }
    assertThat(printed).contains("Both orders, a fresh JVM each");
    for (String run : List.of("cold", "warm", "memo warm", "scattered 1%", "revision memo",
        "revision 1%")) {
      assertThat(printed).containsPattern(
          "(?m)^" + run + " +\\d+\\.\\d\\dx +\\d+\\.\\d\\dx +\\d+\\.\\d\\dx$");
    }
  }
}
