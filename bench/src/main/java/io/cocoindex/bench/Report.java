package io.cocoindex.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The table the harness prints: one line per figure, with its ratio and target when it has one. */
final class Report {
  /** One printed line. */
  record Line(String id, String workload, String figure, String ratio, String target,
      String verdict) {}

  private final List<Line> lines = new ArrayList<>();
  private final PrintStream out;

  Report(PrintStream out) {
    this.out = out;
  }

  /** A progress line that is not a figure of the table. */
  void progress(String message) {
    out.println("  .. " + message);
  }

  /** A figure without a target. */
  void info(String id, String workload, String figure, String ratio) {
    add(new Line(id, workload, figure, ratio, "", ""));
  }

  /** A ratio checked against an upper bound ({@code atMost}) or a lower bound. */
  void check(String id, String workload, String figure, double ratio, String ratioText,
      double bound, boolean atMost) {
    check(id, workload, figure, ratio, ratioText, bound, atMost,
        (atMost ? "<= " : ">= ") + fmtRatio(bound));
  }

  /** As above, with the target printed as {@code targetText}. */
  void check(String id, String workload, String figure, double ratio, String ratioText,
      double bound, boolean atMost, String targetText) {
    boolean ok = atMost ? ratio <= bound : ratio >= bound;
    add(new Line(id, workload, figure, ratioText, targetText, ok ? "PASS" : "MISS"));
  }

  private void add(Line line) {
    lines.add(line);
    out.printf("  .. %s %s: %s %s%n", line.id(), line.workload(), line.figure(), line.ratio());
    out.flush();
  }

  List<Line> lines() {
    return List.copyOf(lines);
  }

  /** The whole table, aligned. */
  String table() {
    String[] head = {"#", "workload", "figure", "ratio", "target", ""};
    int[] w = new int[head.length];
    for (int i = 0; i < head.length; i++) {
      w[i] = head[i].length();
    }
    for (Line l : lines) {
      String[] c = cells(l);
      for (int i = 0; i < c.length; i++) {
        w[i] = Math.max(w[i], c[i].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    appendRow(sb, head, w);
    StringBuilder rule = new StringBuilder();
    for (int i = 0; i < w.length; i++) {
      rule.append(i == 0 ? "" : "  ").append("-".repeat(w[i]));
    }
    sb.append(rule.toString().stripTrailing()).append('\n');
    for (Line l : lines) {
      appendRow(sb, cells(l), w);
    }
    return sb.toString();
  }

  private static String[] cells(Line l) {
    return new String[] {l.id(), l.workload(), l.figure(), l.ratio(), l.target(), l.verdict()};
  }

  private static void appendRow(StringBuilder sb, String[] c, int[] w) {
    StringBuilder row = new StringBuilder();
    for (int i = 0; i < c.length; i++) {
      row.append(i == 0 ? "" : "  ").append(pad(c[i], w[i]));
    }
    sb.append(row.toString().stripTrailing()).append('\n');
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(width - s.length());
  }

  static String fmtRatio(double r) {
    return r >= 10 ? String.format(Locale.ROOT, "%.1fx", r)
        : r >= 0.1 ? String.format(Locale.ROOT, "%.2fx", r)
        : String.format(Locale.ROOT, "%.3fx", r);
  }

  static String ms(double nanos) {
    double ms = nanos / 1e6;
    return ms >= 100 ? String.format(Locale.ROOT, "%.0f ms", ms)
        : String.format(Locale.ROOT, "%.1f ms", ms);
  }

  static String usPerState(double nanos, long states) {
    return String.format(Locale.ROOT, "%.2f us/state", nanos / 1e3 / states);
  }
}
