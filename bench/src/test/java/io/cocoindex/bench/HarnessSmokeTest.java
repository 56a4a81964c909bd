package io.cocoindex.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CI's smoke test: the whole harness at the tiny size completes and prints every row. */
class HarnessSmokeTest {

  @Test
  void tinyRunPrintsEveryWorkload(@TempDir Path dir) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    Report report = Main.run(new String[] {"--size", "tiny", "--dir", dir.toString()}, out);
    String printed = bytes.toString(StandardCharsets.UTF_8);
    System.out.println(printed);

    List<String> ids = report.lines().stream().map(Report.Line::id).distinct()
        .collect(Collectors.toList());
    assertThat(ids).containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9");
    // 2 cold, warm, memo cold + warm two ways, 1% change two ways, naive + 3 comparisons,
    // scattered change, removal, 2 scaling sizes + the child JVM's 2 sizes, its first run and
    // the growth of its cold and warm cost per state,
    // 4 store lines, 3 codecs, 5 processor lines (the processor's own cost, javac's share of it,
    // and with the generated code; the first two again with a javac process per compilation).
    assertThat(report.lines()).hasSize(34);
    assertThat(report.lines()).extracting(Report.Line::workload)
        .contains("untimed warm-up before the timed runs (until the JIT settles)");
    assertThat(report.lines()).extracting(Report.Line::workload)
        .contains("1% of components removed (their rows deleted), memoized",
            "warm rerun, memoized on each part's rows (all read and fingerprinted)",
            "warm rerun, memoized on each part's revision (rows not read)",
            "1% of rows changed (in 1% of components), memoized on revisions");
    assertThat(report.lines()).filteredOn(l -> l.id().equals("9"))
        .extracting(Report.Line::workload)
        .anyMatch(w -> w.contains("a processor that only writes the same"))
        .anyMatch(w -> w.startsWith("javac in a process of its own per compilation"));
    assertThat(report.lines()).filteredOn(l -> l.workload().contains("per-state cost"))
        .extracting(Report.Line::workload)
        .containsExactly("cold per-state cost, N=2,000 vs N=200, both in the child JVM",
            "warm per-state cost, N=2,000 vs N=200, both in the child JVM");
    assertThat(report.lines()).extracting(Report.Line::workload)
        .contains("scaling N=200, child JVM -Xmx512m: cold / warm / memo warm",
            "scaling N=2,000, child JVM -Xmx512m: cold / warm / memo warm",
            "N=2,000, child JVM -Xmx512m: cold as the child's first run (a fresh JVM, its JIT"
                + " compiling)");
    String table = report.table();
    for (Report.Line line : report.lines()) {
      assertThat(table).contains(line.workload());
      assertThat(printed).contains(line.workload());
    }
    assertThat(printed).contains("child JVM -Xmx512m").contains("warmed up: 1 untimed round");
  }
}
