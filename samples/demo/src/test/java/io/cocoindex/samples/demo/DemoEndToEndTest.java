package io.cocoindex.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.samples.sqlite.SqliteDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Drives the demo CLI on a copy of the shipped corpus, as a user would. */
class DemoEndToEndTest {
  @TempDir Path tmp;
  Path source;
  Path home;

  @BeforeEach
  void copyCorpus() throws IOException {
    source = tmp.resolve("corpus");
    home = tmp.resolve("home");
    Path shipped = Path.of("corpus");
    try (Stream<Path> walk = Files.walk(shipped)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        Path target = source.resolve(shipped.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  /** A run of the CLI: its exit code, stdout and stderr. */
  record Result(int exit, String out, String err) {
    /** Both streams, for assertion messages. */
    String all() {
      return out + err;
    }
  }

  Result cli(String... args) {
    return cliIn(List.of("--home", home.toString()), args);
  }

  /** A run of the CLI with the given options before the command (a workspace of its own). */
  Result cliIn(List<String> options, String... args) {
    ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    List<String> all = new ArrayList<>(options);
    all.addAll(List.of(args));
    int exit;
    try (PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
      exit = DemoCli.run(out, err, all.toArray(String[]::new));
    }
    // Progress lines come only when a run is slow enough (a loaded machine): left out, so that
    // what is asserted is the same on any machine.
    String out = outBytes.toString(StandardCharsets.UTF_8)
        .replaceAll("(?m)^  indexing: \\d+/\\d+ files\\R", "");
    return new Result(exit, out, errBytes.toString(StandardCharsets.UTF_8));
  }

  static String row(String out, String label) {
    for (String line : out.split("\n")) {
      if (line.strip().startsWith(label)) {
        return line.strip().substring(label.length()).strip().replaceAll("\\s+", " ");
      }
    }
    throw new AssertionError("no row '" + label + "' in:\n" + out);
  }

  List<String> sql(String query) throws Exception {
    try (SqliteDatabase db = SqliteDatabase.open(home.resolve("index.sqlite"))) {
      return db.read(c -> {
        List<String> rows = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
          while (rs.next()) {
            rows.add(rs.getString(1));
          }
        }
        return rows;
      });
    }
  }

  @Test
  void updateEditDeleteAddThenSearchAndDrop() throws Exception {
    Result first = cli("update", "--source", source.toString());
    assertThat(first.exit()).as(first.all()).isZero();
    assertThat(row(first.out(), "summary files")).isEqualTo("248 0 0 0");
    long chunks = Long.parseLong(sql("SELECT count(*) FROM chunks").get(0));
    assertThat(row(first.out(), "sqlite rows (chunks)")).isEqualTo(chunks + " 0 0 0");

    Result rerun = cli("update", "--source", source.toString());
    assertThat(row(rerun.out(), "summary files")).isEqualTo("0 0 0 248");
    assertThat(row(rerun.out(), "sqlite rows (chunks)")).isEqualTo("0 0 0 " + chunks);
    assertThat(rerun.out()).contains("(248 unchanged, skipped)");

    // Edit one file (its first chunk), delete one (one chunk), add one (one chunk).
    Path edited = source.resolve("reference/assert.md");
    String text = Files.readString(edited);
    Files.writeString(edited, text.replaceFirst("assert", "assert quokkaphrase"));
    long editedChunks = Long.parseLong(
        sql("SELECT count(*) FROM chunks WHERE file='reference/assert.md'").get(0));
    long deletedChunks = Long.parseLong(
        sql("SELECT count(*) FROM chunks WHERE file='reference/break.md'").get(0));
    Files.delete(source.resolve("reference/break.md"));
    Files.writeString(source.resolve("reference/new-topic.md"), "# New\n\nA brand new topic.\n");

    Result preview = cli("preview", "--source", source.toString(), "--detailed-exitcode");
    assertThat(preview.exit()).isEqualTo(2);
    assertThat(preview.out()).contains("summary files: 1 create, 1 delete, 1 update"
        + System.lineSeparator());
    Result changed = cli("update", "--source", source.toString());
    assertThat(changed.exit()).as(changed.all()).isZero();
    assertThat(row(changed.out(), "summary files")).isEqualTo("1 1 1 246");
    assertThat(row(changed.out(), "sqlite rows (chunks)"))
        .isEqualTo("1 1 " + deletedChunks + " " + (chunks - deletedChunks - 1));
    assertThat(editedChunks).isGreaterThanOrEqualTo(1);
    assertThat(cli("preview", "--source", source.toString(), "--detailed-exitcode").exit())
        .isZero();

    Result search = cli("search", "quokkaphrase");
    assertThat(search.out()).contains("reference/assert.md #0").contains("[quokkaphrase]");
    assertThat(Files.exists(home.resolve("summaries/reference__new-topic.md.json"))).isTrue();
    assertThat(Files.exists(home.resolve("summaries/reference__break.md.json"))).isFalse();

    long tracked = Long.parseLong(cli("status").out().split(" ")[0]);
    Result drop = cli("drop", "--source", source.toString());
    assertThat(drop.exit()).as(drop.all()).isZero();
    // Every state is counted, the rows and files that went with their containers included.
    assertThat(drop.out()).startsWith("Dropped: " + tracked + " target states removed (2 deleted"
        + " through their handlers, the rest with their containers).");
    assertThat(row(drop.out(), "summary files")).isEqualTo("248"); // one deleted, one added
    assertThat(row(drop.out(), "sqlite rows (chunks)"))
        .isEqualTo(Long.toString(chunks - deletedChunks + 1));
    assertThat(sql("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'chunks%'"))
        .isEmpty();
    assertThat(home.resolve("summaries")).doesNotExist();
    assertThat(cli("status").out()).contains("Nothing is tracked");
    assertThat(cli("show").out()).contains("Nothing is tracked"); // status's other name
    Result again = cli("drop", "--source", source.toString());
    assertThat(again.exit()).isZero();
    assertThat(again.out()).isEqualTo("Nothing is tracked: nothing to drop."
        + System.lineSeparator());
    Result searchAfterDrop = cli("search", "quokkaphrase");
    assertThat(searchAfterDrop.exit()).isEqualTo(1);
    assertThat(searchAfterDrop.err()).isEqualTo(
        "Nothing is indexed in " + home + ": run update first." + System.lineSeparator());
  }

  @Test
  void aSourceThatCameUpEmptyDeletesNothingUnderADeletionLimit() throws Exception {
    cli("update", "--source", source.toString());
    long chunks = Long.parseLong(sql("SELECT count(*) FROM chunks").get(0));
    Path empty = Files.createDirectories(tmp.resolve("empty"));

    Result guarded = cli("update", "--source", empty.toString(), "--max-deletions", "10");
    assertThat(guarded.exit()).isEqualTo(1);
    // In the command line's words: a user of the command gives no UpdateOptions.
    assertThat(guarded.err()).isEqualTo("error: the update could not complete (fix this and run"
        + " update again):" + System.lineSeparator() + "  ! the update would delete "
        + (chunks + 248) + " outputs (chunks, summaries and the rest), more than --max-deletions"
        + " 10: none was deleted. If the source folder came up short, fix it; if the deletions"
        + " are meant, run preview to list them, then update with a higher --max-deletions or"
        + " without it" + System.lineSeparator());
    assertThat(sql("SELECT count(*) FROM chunks")).containsExactly(Long.toString(chunks));
    try (Stream<Path> files = Files.list(home.resolve("summaries"))) {
      assertThat(files.count()).isEqualTo(248);
    }

    // The source back, a full reprocess writes every output again and deletes nothing.
    Result full = cli("update", "--source", source.toString(), "--full", "--max-deletions", "0");
    assertThat(full.exit()).as(full.all()).isZero();
    assertThat(row(full.out(), "summary files")).isEqualTo("0 248 0 0");
  }

  /** Every file is a memoized component: a memo hit must not hide summaries deleted by hand. */
  @Test
  void aSummaryFolderDeletedByHandIsWrittenAgainByTheNextUpdate() throws Exception {
    cli("update", "--source", source.toString());
    long chunks = Long.parseLong(sql("SELECT count(*) FROM chunks").get(0));
    try (Stream<Path> walk = Files.walk(home.resolve("summaries"))) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }

    assertThat(cli("preview", "--source", source.toString(), "--detailed-exitcode").exit())
        .isEqualTo(2);
    Result again = cli("update", "--source", source.toString());
    assertThat(again.exit()).as(again.all()).isZero();
    assertThat(row(again.out(), "summary files")).isEqualTo("248 0 0 0");
    assertThat(row(again.out(), "sqlite rows (chunks)")).isEqualTo("0 0 0 " + chunks);
    try (Stream<Path> files = Files.list(home.resolve("summaries"))) {
      assertThat(files.count()).isEqualTo(248);
    }

    Result rerun = cli("update", "--source", source.toString());
    assertThat(rerun.out()).contains("(248 unchanged, skipped)");
    assertThat(row(rerun.out(), "summary files")).isEqualTo("0 0 0 248");
  }

  /**
   * The summaries' folder is keyed relative to the workspace: a workspace moved to another folder
   * (its state, index and summaries with it) is the same target, and its rerun changes nothing.
   * Keyed by its absolute path (as it was), the moved folder was another target: every file ran
   * again and every summary was written again, and a copy's rerun deleted the original's.
   */
  @Test
  void aMovedWorkspacesRerunChangesNothing() throws Exception {
    Result first = cli("update", "--source", source.toString());
    assertThat(first.exit()).as(first.all()).isZero();
    long chunks = Long.parseLong(sql("SELECT count(*) FROM chunks").get(0));
    Map<String, String> summaries = summaries(home);

    Path moved = tmp.resolve("elsewhere").resolve("moved-home");
    Files.createDirectories(moved.getParent());
    Files.move(home, moved);
    home = moved;

    Result preview = cli("preview", "--source", source.toString(), "--detailed-exitcode");
    assertThat(preview.exit()).as(preview.all()).isZero();
    Result rerun = cli("update", "--source", source.toString());
    assertThat(rerun.exit()).as(rerun.all()).isZero();
    assertThat(rerun.out()).contains("(248 unchanged, skipped)");
    assertThat(row(rerun.out(), "summary files")).isEqualTo("0 0 0 248");
    assertThat(row(rerun.out(), "output folders")).isEqualTo("0 0 0 1");
    assertThat(row(rerun.out(), "sqlite rows (chunks)")).isEqualTo("0 0 0 " + chunks);
    assertThat(summaries(home)).isEqualTo(summaries);
    assertThat(trackedProviders()).contains("cocoindex/localfs/summaries");
  }

  /**
   * A workspace of an earlier version, whose summaries' folder was keyed by its absolute path:
   * the first update after the upgrade moves the folder to its relative key, writing the
   * summaries again (with the same content) and deleting none of them with the old key; the
   * update after it changes nothing, and the workspace then moves as any other.
   */
  @Test
  void aWorkspaceOfAnEarlierVersionKeepsItsSummariesAndConverges() throws Exception {
    Workspace ws = new Workspace(home);
    Files.createDirectories(home);
    Indexer earlier = new Indexer(ws, source, ws.state().toString(), Indexer.DEFAULT_APP)
        .asBeforeRelativeSummaries();
    try (SqliteDatabase db = SqliteDatabase.open(ws.index());
        io.cocoindex.runtime.App app = earlier.app(db)) {
      app.update();
    }
    String earlierFolder = "cocoindex/localfs/" + home.resolve("summaries").toAbsolutePath();
    assertThat(trackedProviders()).contains(earlierFolder)
        .doesNotContain("cocoindex/localfs/summaries");
    Files.writeString(ws.chunkTarget(), "sqlite\n"); // as the earlier version's CLI wrote it
    Map<String, String> summaries = summaries(home);
    assertThat(summaries).hasSize(248);
    long chunks = Long.parseLong(sql("SELECT count(*) FROM chunks").get(0));

    Result upgraded = cli("update", "--source", source.toString());
    assertThat(upgraded.exit()).as(upgraded.all()).isZero();
    // Written again under the new key; the old key's deletion took none of them.
    assertThat(row(upgraded.out(), "summary files")).isEqualTo("248 0 0 0");
    assertThat(row(upgraded.out(), "output folders")).isEqualTo("1 0 1 0");
    assertThat(row(upgraded.out(), "sqlite rows (chunks)")).isEqualTo("0 0 0 " + chunks);
    assertThat(summaries(home)).isEqualTo(summaries);
    assertThat(trackedProviders()).contains("cocoindex/localfs/summaries")
        .doesNotContain(earlierFolder);

    Result rerun = cli("update", "--source", source.toString());
    assertThat(rerun.exit()).as(rerun.all()).isZero();
    assertThat(rerun.out()).contains("(248 unchanged, skipped)");
    assertThat(row(rerun.out(), "summary files")).isEqualTo("0 0 0 248");
    assertThat(row(rerun.out(), "output folders")).isEqualTo("0 0 0 1");

    Path moved = tmp.resolve("moved-home");
    Files.move(home, moved);
    home = moved;
    Result afterMove = cli("update", "--source", source.toString());
    assertThat(afterMove.exit()).as(afterMove.all()).isZero();
    assertThat(row(afterMove.out(), "summary files")).isEqualTo("0 0 0 248");
    assertThat(summaries(home)).isEqualTo(summaries);
  }

  /** The summary files of the workspace {@code home}, by name. */
  static Map<String, String> summaries(Path home) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(home.resolve("summaries"))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        out.put(f.getFileName().toString(), Files.readString(f));
      }
    }
    return out;
  }

  /** The providers the workspace {@code home}'s state tracks states of. */
  List<String> trackedProviders() {
    Workspace ws = new Workspace(home);
    Indexer indexer = new Indexer(ws, source, ws.state().toString(), Indexer.DEFAULT_APP);
    try (SqliteDatabase db = SqliteDatabase.open(ws.index());
        io.cocoindex.runtime.App app = indexer.app(db)) {
      return new ArrayList<>(new java.util.TreeSet<>(app.status().providers().keySet()));
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void badFilesAreReportedPerFileTheRestCompletesAndTheyArePickedUpOnceFixed() throws Exception {
    Files.write(source.resolve("reference/zz-binary.md"), new byte[] {'a', 0, 'b'});
    Files.write(source.resolve("reference/zz-latin1.md"),
        "caf\u00e9 au lait".getBytes(StandardCharsets.ISO_8859_1));
    Result run = cli("update", "--source", source.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).startsWith("Indexed " + source + ": 248 files (0 unchanged, skipped;"
        + " 2 could not be, below) in ");
    assertThat(run.err())
        .contains("2 files could not be indexed")
        .contains("! reference/zz-binary.md: looks binary")
        .contains("! reference/zz-latin1.md: is not valid UTF-8");
    assertThat(row(run.out(), "summary files")).as(run.out()).isEqualTo("248 0 0 0");

    Files.writeString(source.resolve("reference/zz-binary.md"), "now text");
    Files.writeString(source.resolve("reference/zz-latin1.md"), "caf\u00e9 au lait");
    Result fixed = cli("update", "--source", source.toString());
    assertThat(fixed.exit()).as(fixed.all()).isZero();
    assertThat(row(fixed.out(), "summary files")).isEqualTo("2 0 0 248");
    assertThat(cli("search", "lait").out()).contains("reference/zz-latin1.md #0");
  }

  /**
   * A drop reads no source file: main registers the connectors and mounts the outputs, and
   * mounts no file's component (before, it read all 248 files again and ran each component, and
   * a source folder that was gone failed main, with a warning, after its registrations).
   */
  @Test
  void aDropReadsNoSourceFileAndNeedsNoSourceFolder() throws Exception {
    assertThat(cli("update", "--source", source.toString()).exit()).isZero();
    try (Stream<Path> walk = Files.walk(source)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
    Workspace ws = new Workspace(home);
    Indexer indexer = new Indexer(ws, source, ws.state().toString(), Indexer.DEFAULT_APP)
        .registrationsOnly();
    try (SqliteDatabase db = SqliteDatabase.open(ws.index());
        io.cocoindex.runtime.App app = indexer.app(db)) {
      // The root, and the foreground mounts of the chunk table and the summaries folder.
      assertThat(app.dropState().componentsRun()).isEqualTo(3);
    }
    assertThat(sql("SELECT name FROM sqlite_master WHERE name = 'chunks'")).isEmpty();
    assertThat(home.resolve("summaries")).doesNotExist();
    assertThat(cli("status").out()).contains("Nothing is tracked");
  }

  /** The tests run in samples/demo, where the default corpus is not: as a user elsewhere. */
  @Test
  void theDefaultSourceOutsideTheRepositoryRootSaysWhereItIsFound() {
    Result run = cli("update");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).isEqualTo("error: source folder samples/demo/corpus does not exist or is"
        + " not a directory (the default, the shipped corpus, is relative to the repository's"
        + " root: run from there, or give --source)" + System.lineSeparator());
    Path missing = tmp.resolve("missing");
    assertThat(cli("preview", "--source", missing.toString()).err()).isEqualTo("error: source"
        + " folder " + missing + " does not exist or is not a directory" + System.lineSeparator());
  }

  @Test
  void oneFileAndOneBadFileAreToldInTheSingular() throws Exception {
    Path one = Files.createDirectories(tmp.resolve("one"));
    Files.writeString(one.resolve("note.md"), "# A note\n\nOne paragraph.\n");
    Files.write(one.resolve("zz-binary.md"), new byte[] {'a', 0, 'b'});
    Result run = cli("update", "--source", one.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).startsWith("Indexed " + one + ": 1 file (0 unchanged, skipped; 1 could"
        + " not be, below) in ");
    assertThat(run.err()).isEqualTo("1 file could not be indexed (left as it was; fix it and run"
        + " update again):" + System.lineSeparator() + "  ! zz-binary.md: looks binary"
        + " (a NUL byte at offset 1): not indexed" + System.lineSeparator());
  }

  @Test
  void chunksGoToPostgresAndStateToTheSharedStoreWhenAsked() throws Exception {
    String url = postgresUrl();
    String schema = "demo_" + java.util.UUID.randomUUID().toString().replace("-", "");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    String state = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    try {
      Result first = cli("--state", state, "--target", url, "update", "--source",
          source.toString());
      assertThat(first.exit()).as(first.all()).isZero();
      assertThat(row(first.out(), "summary files")).isEqualTo("248 0 0 0");
      Result again = cli("--state", state, "--target", url, "update", "--source",
          source.toString());
      assertThat(row(again.out(), "postgres rows (chunks)"))
          .isEqualTo("0 0 0 " + row(first.out(), "postgres rows (chunks)").split(" ")[0]);
      assertThat(cli("--target", url, "search", "json", "encoder").out())
          .contains("library/json.txt");
      assertThat(cli("search", "json").err()).isEqualTo("The chunks of " + home + " are in"
          + " PostgreSQL (an earlier update had --target): search with that --target."
          + System.lineSeparator());
      Result drop = cli("--state", state, "--target", url, "drop", "--source", source.toString());
      assertThat(drop.exit()).as(drop.all()).isZero();
      try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT to_regclass('public.chunks') IS NULL")) {
        rs.next();
        assertThat(rs.getBoolean(1)).as("chunk table dropped").isTrue();
      }
    } finally {
      try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA " + schema + " CASCADE");
        s.execute("DROP TABLE IF EXISTS public.chunks");
      }
    }
  }

  /**
   * A workspace keeps its chunks where its last update wrote them: an update, preview or drop
   * with the other target would not register the connector holding them, so they would stay
   * behind, tracked, where no drop reaches them (before, the update only logged the engine's
   * warning about an unregistered provider, and the drop failed naming one). It is refused,
   * saying which target holds them, until a drop with that target releases the workspace.
   */
  @Test
  void aWorkspaceKeepsItsChunkTargetUntilDropped() throws Exception {
    String url = postgresUrl();
    String nl = System.lineSeparator();
    try {
      Result first = cli("--target", url, "update", "--source", source.toString());
      assertThat(first.exit()).as(first.all()).isZero();
      long rows = chunkRows(url);

      String inPostgres = "error: the chunks of " + home + " are in PostgreSQL (an earlier update"
          + " had --target): give that --target again, or run drop with it before indexing into"
          + " the SQLite index; or give this index a --home of its own" + nl;
      for (List<String> command : List.of(List.of("update", "--source", source.toString()),
          List.of("preview", "--source", source.toString()), List.of("drop"))) {
        Result refused = cli(command.toArray(String[]::new));
        assertThat(refused.exit()).as(command.toString()).isEqualTo(1);
        assertThat(refused.err()).as(command.toString()).isEqualTo(inPostgres);
      }
      assertThat(chunkRows(url)).isEqualTo(rows);
      assertThat(sql("SELECT name FROM sqlite_master WHERE name = 'chunks'")).isEmpty();

      assertThat(cli("--target", url, "drop").exit()).isZero();
      Result sqlite = cli("update", "--source", source.toString());
      assertThat(sqlite.exit()).as(sqlite.all()).isZero();
      assertThat(row(sqlite.out(), "summary files")).isEqualTo("248 0 0 0");

      Result back = cli("--target", url, "update", "--source", source.toString());
      assertThat(back.exit()).isEqualTo(1);
      assertThat(back.err()).isEqualTo("error: the chunks of " + home + " are in its SQLite"
          + " index (an earlier update had no --target): leave out --target, or run drop without"
          + " it before indexing into PostgreSQL; or give this index a --home of its own" + nl);

      // The workspace's note is a hint; what the state tracks decides: state deleted by hand
      // tracks no chunk anywhere.
      try (Stream<Path> walk = Files.walk(home.resolve("state"))) {
        for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      }
      Result afresh = cli("--target", url, "update", "--source", source.toString());
      assertThat(afresh.exit()).as(afresh.all()).isZero();
      assertThat(chunkRows(url)).isEqualTo(rows);
    } finally {
      try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS public.chunks");
      }
    }
  }

  /**
   * Two workspaces writing chunks to one PostgreSQL database under different {@code --app} names:
   * the second's update fails on the chunk table, naming the app that made it, and neither its
   * run nor its drop touches the first's rows.
   */
  @Test
  void twoAppsSharingAChunkTableAreToldApart() throws Exception {
    String url = postgresUrl();
    Path otherHome = tmp.resolve("other-home");
    try {
      Result first = cli("--app", "notes", "--target", url, "update", "--source",
          source.toString());
      assertThat(first.exit()).as(first.all()).isZero();
      long rows = chunkRows(url);
      assertThat(rows).isPositive();

      List<String> other = List.of("--home", otherHome.toString(), "--app", "papers",
          "--target", url);
      Result second = cliIn(other, "update", "--source", source.toString());
      assertThat(second.exit()).isEqualTo(1);
      assertThat(second.out()).startsWith("Update of " + source + " did not complete");
      assertThat(second.err()).contains("table public.chunks cannot be managed by app 'papers':"
          + " app 'notes' made it");
      Result drop = cliIn(other, "drop", "--source", source.toString());
      assertThat(drop.exit()).as(drop.all()).isZero();
      assertThat(chunkRows(url)).isEqualTo(rows);

      Result again = cli("--app", "notes", "--target", url, "update", "--source",
          source.toString());
      assertThat(row(again.out(), "postgres rows (chunks)")).isEqualTo("0 0 0 " + rows);
      assertThat(cli("--app", "notes", "--target", url, "drop").exit()).isZero();
    } finally {
      try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE IF EXISTS public.chunks");
      }
    }
  }

  /** The test server's JDBC URL; the test is skipped without one, and fails under CI. */
  static String postgresUrl() {
    String url = System.getenv("COCOINDEX_TEST_POSTGRES_URL");
    if (url == null) {
      if ("true".equals(System.getenv("CI"))) {
        org.junit.jupiter.api.Assertions.fail("COCOINDEX_TEST_POSTGRES_URL is not set but CI=true");
      }
      org.junit.jupiter.api.Assumptions.abort("COCOINDEX_TEST_POSTGRES_URL is not set");
    }
    return url;
  }

  static long chunkRows(String url) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM public.chunks")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aBlankAppNameIsAClearErrorAndCreatesNothing() {
    Result run = cli("--app", " ", "update", "--source", source.toString());
    assertThat(run.exit()).isEqualTo(64); // a wrong command line
    assertThat(run.err()).startsWith("--app must name the app, not be blank"
        + System.lineSeparator() + "Usage: cocoindex-demo");
    assertThat(home).doesNotExist();
  }

  @Test
  void missingSourceFolderIsAClearErrorAndChangesNothing() {
    Result run = cli("update", "--source", tmp.resolve("nope").toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).contains("source folder").contains("does not exist");
    assertThat(home.resolve("index.sqlite")).doesNotExist();
  }

  @Test
  void statusDropAndSearchInAnEmptyHomeSayNothingIsThereAndCreateNothing() {
    assertThat(cli("status").out()).isEqualTo("Nothing is tracked: run update first."
        + System.lineSeparator());
    assertThat(cli("drop", "--source", source.toString()).out())
        .isEqualTo("Nothing is tracked: nothing to drop." + System.lineSeparator());
    Result search = cli("search", "json");
    assertThat(search.exit()).isEqualTo(1);
    assertThat(search.err()).contains("Nothing is indexed");
    assertThat(home).doesNotExist();
  }

  @Test
  void filesWhoseFlatSummaryNamesOnceMetGetOneSummaryEach() throws Exception {
    Path small = tmp.resolve("small");
    Files.createDirectories(small.resolve("sub"));
    Files.writeString(small.resolve("sub/x.txt"), "one");
    Files.writeString(small.resolve("sub__x.txt"), "two");
    Files.writeString(small.resolve("100%_done.md"), "three");
    Result run = cli("update", "--source", small.toString());
    assertThat(run.exit()).as(run.all()).isZero();
    try (Stream<Path> summaries = Files.list(home.resolve("summaries"))) {
      assertThat(summaries.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("sub__x.txt.json", "sub%5F%5Fx.txt.json",
              "100%25%5Fdone.md.json");
    }
  }

  @Test
  void anUnreachableChunkTableFailsTheUpdateNotFiles() {
    Result run = cli("--target", "jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2", "update",
        "--source", source.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).startsWith("Update of " + source + " did not complete");
    assertThat(run.err()).startsWith("error: the update could not complete")
        .doesNotContain("could not be indexed");
  }

  @Test
  void helpListsTheCommands() {
    Result help = cli("help");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).contains("update").contains("preview").contains("search")
        .contains("status").contains("drop").contains("Exit codes:")
        .contains("64   the command line is wrong");
    Result updateHelp = cli("update", "--help");
    assertThat(updateHelp.exit()).as(updateHelp.all()).isZero();
    assertThat(updateHelp.out()).contains("Usage: cocoindex-demo update").contains("--source");
  }

  /** The driver's own word for these was a bare "URL invalid foo", exit 1, after the parse. */
  @Test
  void aTargetOrStateThatIsNoPostgresUrlIsAWrongCommandLine() {
    Result target = cli("--target", "foo", "update", "--source", source.toString());
    assertThat(target.exit()).isEqualTo(64);
    assertThat(target.err()).startsWith("--target foo is not a PostgreSQL JDBC URL: give"
        + " jdbc:postgresql://host/db?user=..." + System.lineSeparator());
    Result state = cli("--state", "postgres://db/coco", "status");
    assertThat(state.exit()).isEqualTo(64);
    assertThat(state.err()).startsWith("--state postgres://db/coco is not a PostgreSQL JDBC URL:"
        + " give jdbc:postgresql://host/db?user=..., or a folder");
    assertThat(cli("--state", "jdbc:mysql://db/coco", "search", "json").exit()).isEqualTo(64);
    assertThat(home).doesNotExist();
  }

  /** Values no run can use were refused only once it had started (exit 1), or not at all. */
  @Test
  void aValueNoRunCanUseIsAWrongCommandLine() {
    Result negative = cli("update", "--source", source.toString(), "--max-deletions", "-1");
    assertThat(negative.exit()).isEqualTo(64);
    assertThat(negative.err()).startsWith("--max-deletions -1 cannot be negative: give 0 to"
        + " delete nothing");
    Result none = cli("search", "--limit", "0", "json");
    assertThat(none.exit()).isEqualTo(64);
    assertThat(none.err()).startsWith("--limit 0 shows nothing: give 1 or more");
    assertThat(home).doesNotExist();
  }

  /** "Run update first" sent a user whose updates had --target round in circles. */
  @Test
  void aSearchWithoutTheTargetOfTheUpdatesSaysWhereTheChunksAre() throws IOException {
    Files.createDirectories(home);
    Files.writeString(new Workspace(home).chunkTarget(), "postgres\n");
    Result search = cli("search", "json");
    assertThat(search.exit()).isEqualTo(1);
    assertThat(search.err()).isEqualTo("The chunks of " + home + " are in PostgreSQL (an"
        + " earlier update had --target): search with that --target." + System.lineSeparator());
  }

  @Test
  void searchHelpGivesTheDefaultLimit() {
    assertThat(cli("search", "--help").out()).contains("Results to show (default: 10).");
  }

  /** A typo must not read as "changes pending" (2) to a script checking the preview. */
  @Test
  void aWrongCommandLineExits64NotTheExitCodeOfPendingChanges() {
    Result typo = cli("preview", "--detailed-exitcod");
    assertThat(typo.exit()).isEqualTo(64);
    assertThat(typo.err()).contains("Unknown option: '--detailed-exitcod'");
    assertThat(cli("no-such-command").exit()).isEqualTo(64);
    assertThat(home).doesNotExist();
  }

  @Test
  void previewJsonListsThePlanAndAppliesNothing() {
    Result preview = cli("preview", "--source", source.toString(), "--json");
    assertThat(preview.exit()).isZero();
    assertThat(preview.out()).contains("\"changes\"").contains("\"action\" : \"create\"")
        .contains("\"key\" : \"reference__assert.md.json\"");
    assertThat(home.resolve("summaries")).doesNotExist();
  }
}
