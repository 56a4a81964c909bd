package io.cocoindex.reliability;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.inspect.StatusReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Checks that the real external state (read back from the SQLite database and the file system)
 * equals what {@link World} declares, with nothing left over, and that the state store is
 * settled and consistent. Returns the differences; empty means converged.
 */
final class Convergence {
  private Convergence() {}

  static List<String> check(World w, Path targetDb, Path outDir, Path stateDir, App app)
      throws SQLException, IOException {
    List<String> problems = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + targetDb.toAbsolutePath())) {
      checkSchema(w, c, app.name(), problems);
      compare("docs", expectedDocs(w), query(c, "SELECT id, title, body, n FROM docs ORDER BY id"),
          problems);
      compare("tags", expectedTags(w),
          query(c, "SELECT doc, tag, weight FROM tags ORDER BY doc, tag"), problems);
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO docs_fts(docs_fts, rank) VALUES('integrity-check', 1)");
      } catch (SQLException e) {
        problems.add("FTS index docs_fts is inconsistent with docs: " + e.getMessage());
      }
      for (String word : new String[] {"alpha", "kilo", "tango"}) {
        Set<String> expected = new TreeSet<>();
        w.docs().values().forEach(d -> {
          String text = (w.ftsWithTitle ? d.title() + " " : "") + d.body();
          if ((" " + text + " ").contains(" " + word + " ")) {
            expected.add(d.id());
          }
        });
        List<String> found = query(c, "SELECT d.id FROM docs_fts f JOIN docs d ON d.rowid = f.rowid"
            + " WHERE docs_fts MATCH '" + word + "' ORDER BY d.id");
        if (!new TreeSet<>(found).equals(expected)) {
          problems.add("full-text search for '" + word + "' finds " + found.size()
              + " docs, expected " + expected.size());
        }
      }
    }
    compare("files", expectedFiles(w), actualFiles(outDir), problems);

    StatusReport status = app.status();
    if (!status.unsettled().isEmpty()) {
      problems.add(status.unsettled().size() + " unsettled states after a clean run, e.g. "
          + status.unsettled().get(0));
    }
    for (String provider : status.providers().keySet()) {
      if (!provider.startsWith("cocoindex/sqlite/table") && !provider.startsWith("cocoindex/localfs")) {
        problems.add("tracked states under an unknown provider " + provider);
      }
    }
    if (status.total() != w.stateCount()) {
      problems.add("the store tracks " + status.total() + " target states, the world declares "
          + w.stateCount() + " (" + status.providers().entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue().size()).toList() + ")");
    }
    // One record per component: the root (it owns the attachments), the two tables' and the
    // directory's (mountTarget mounts one for each), the shared directory's while it is one
    // (the root declares the file in its place), every component of the world and every
    // group (memoized; it owns nothing). One left over is a component the sweep did not forget.
    // World empties a component now and then (from generation 40 or so in some seeds): a
    // memoized one keeps a record for its memo, a plain one may have one or not (kept from when
    // it declared something, or deleted by the sweep of a run on a world without it).
    long components = 1 + 3 + (w.sharedDir ? 1 : 0) + w.comps.size() + CrashApp.groups(w).size();
    long emptyPlain = w.comps.entrySet().stream()
        .filter(e -> e.getValue().declaresNothing() && !CrashApp.memoized(e.getKey())).count();
    if (status.components() < components - emptyPlain || status.components() > components) {
      problems.add("the store has " + status.components() + " component records, the app "
          + components + " components (the root, " + (w.sharedDir ? 4 : 3) + " targets' own, " + w.comps.size()
          + " components, " + emptyPlain + " of them plain and empty, and "
          + CrashApp.groups(w).size() + " groups)");
    }
    if (app.preview().hasChanges()) {
      problems.add("a preview after the clean run still plans changes: "
          + app.preview().changes().stream().limit(5).toList());
    }
    try (Connection s = DriverManager.getConnection(
        "jdbc:sqlite:" + stateDir.resolve("state.db").toAbsolutePath())) {
      List<String> ok = query(s, "PRAGMA integrity_check");
      if (!ok.equals(List.of("ok"))) {
        problems.add("state.db integrity_check: " + ok);
      }
    }
    return problems;
  }

  private static void checkSchema(World w, Connection c, String app, List<String> problems)
      throws SQLException {
    Set<String> expected = new TreeSet<>(List.of("table docs", "table tags",
        "index docs_by_title", "table docs_fts", "table docs_fts_data", "table docs_fts_idx",
        "table docs_fts_docsize", "table docs_fts_config", "trigger docs_fts_ai",
        "trigger docs_fts_ad", "trigger docs_fts_au"));
    if (w.tagIndex) {
      expected.add("index tags_by_tag");
    }
    Set<String> actual = new TreeSet<>(query(c, "SELECT type || ' ' || name FROM sqlite_master"
        + " WHERE name NOT LIKE 'sqlite_%'"));
    if (!actual.equals(expected)) {
      Set<String> extra = new TreeSet<>(actual);
      extra.removeAll(expected);
      Set<String> missing = new TreeSet<>(expected);
      missing.removeAll(actual);
      problems.add("schema objects: missing " + missing + ", orphan " + extra);
    }
    List<String> titleIndex = query(c, "SELECT sql FROM sqlite_master WHERE name='docs_by_title'");
    // The index names its app (a comment SQLite keeps in the index's SQL).
    String wantIndex = "CREATE INDEX \"docs_by_title\" /* cocoindex app: " + app + " */ ON"
        + " \"docs\" (" + (w.titleIndexUnique ? "\"title\", \"n\"" : "\"title\"") + ")";
    if (!titleIndex.equals(List.of(wantIndex))) {
      problems.add("index docs_by_title is " + titleIndex + ", declared " + wantIndex);
    }
    List<String> fts = query(c, "SELECT sql FROM sqlite_master WHERE name='docs_fts'");
    String wantFts = "fts5(" + (w.ftsWithTitle ? "\"title\", \"body\"" : "\"body\"") + ",";
    if (fts.size() != 1 || !fts.get(0).contains(wantFts)) {
      problems.add("docs_fts is " + fts + ", declared " + wantFts);
    }
  }

  static List<String> expectedDocs(World w) {
    return w.docs().values().stream()
        .map(d -> d.id() + "|" + d.title() + "|" + d.body() + "|" + d.n()).toList();
  }

  static List<String> expectedTags(World w) {
    return w.tags().values().stream()
        .map(t -> t.doc() + "|" + t.tag() + "|" + t.weight()).toList();
  }

  static Map<String, String> expectedFiles(World w) {
    return w.files();
  }

  /** Every file and directory under {@code dir} by relative path; directories map to null. */
  static Map<String, String> actualFiles(Path dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    if (!Files.isDirectory(dir)) {
      out.put("<output directory missing>", null);
      return out;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        if (p.equals(dir)) {
          continue;
        }
        String rel = dir.relativize(p).toString().replace('\\', '/');
        out.put(rel, Files.isDirectory(p) ? null
            : new String(Files.readAllBytes(p), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static <T> void compare(String what, List<String> expected, List<String> actual,
      List<String> problems) {
    expected = expected.stream().sorted().toList();
    actual = actual.stream().sorted().toList();
    if (!expected.equals(actual)) {
      Set<String> missing = new TreeSet<>(expected);
      actual.forEach(missing::remove);
      Set<String> extra = new TreeSet<>(actual);
      expected.forEach(extra::remove);
      problems.add(what + ": " + actual.size() + " found, " + expected.size() + " declared; missing "
          + first(missing) + ", orphan/stale " + first(extra));
    }
  }

  private static void compare(String what, Map<String, String> expected,
      Map<String, String> actual, List<String> problems) {
    if (!expected.equals(actual)) {
      Set<String> missing = new TreeSet<>();
      Set<String> extra = new TreeSet<>();
      Set<String> stale = new TreeSet<>();
      expected.forEach((k, v) -> {
        if (!actual.containsKey(k)) {
          missing.add(k);
        } else if (!java.util.Objects.equals(v, actual.get(k))) {
          stale.add(k);
        }
      });
      actual.keySet().forEach(k -> {
        if (!expected.containsKey(k)) {
          extra.add(k);
        }
      });
      problems.add(what + ": missing " + first(missing) + ", orphan " + first(extra) + ", stale "
          + first(stale));
    }
  }

  private static String first(Set<String> s) {
    return s.size() <= 5 ? s.toString() : new ArrayList<>(s).subList(0, 5) + " and " + (s.size() - 5)
        + " more";
  }

  static List<String> query(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          row.append(i == 1 ? "" : "|").append(rs.getString(i));
        }
        out.add(row.toString());
      }
    }
    return out;
  }
}
