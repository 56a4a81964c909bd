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
import java.util.List;
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

  record Result(int exit, String out) {}

  Result cli(String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<String> all = new ArrayList<>(List.of("--home", home.toString()));
    all.addAll(List.of(args));
    int exit;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      exit = DemoCli.run(out, out, all.toArray(String[]::new));
    }
    return new Result(exit, bytes.toString(StandardCharsets.UTF_8));
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
    assertThat(first.exit()).as(first.out()).isZero();
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
    Result changed = cli("update", "--source", source.toString());
    assertThat(changed.exit()).as(changed.out()).isZero();
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

    Result drop = cli("drop", "--source", source.toString());
    assertThat(drop.exit()).as(drop.out()).isZero();
    assertThat(sql("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'chunks%'"))
        .isEmpty();
    assertThat(home.resolve("summaries")).doesNotExist();
    assertThat(cli("status").out()).contains("Nothing is tracked");
    assertThat(cli("show").out()).contains("Nothing is tracked"); // status's other name
  }

  @Test
  void badFilesAreReportedPerFileTheRestCompletesAndTheyArePickedUpOnceFixed() throws Exception {
    Files.write(source.resolve("reference/zz-binary.md"), new byte[] {'a', 0, 'b'});
    Files.write(source.resolve("reference/zz-latin1.md"),
        "caf\u00e9 au lait".getBytes(StandardCharsets.ISO_8859_1));
    Result run = cli("update", "--source", source.toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out())
        .contains("2 files could not be indexed")
        .contains("! reference/zz-binary.md: looks binary")
        .contains("! reference/zz-latin1.md: is not valid UTF-8");
    assertThat(row(run.out(), "summary files")).as(run.out()).isEqualTo("248 0 0 0");

    Files.writeString(source.resolve("reference/zz-binary.md"), "now text");
    Files.writeString(source.resolve("reference/zz-latin1.md"), "caf\u00e9 au lait");
    Result fixed = cli("update", "--source", source.toString());
    assertThat(fixed.exit()).as(fixed.out()).isZero();
    assertThat(row(fixed.out(), "summary files")).isEqualTo("2 0 0 248");
    assertThat(cli("search", "lait").out()).contains("reference/zz-latin1.md #0");
  }

  @Test
  void chunksGoToPostgresAndStateToTheSharedStoreWhenAsked() throws Exception {
    String url = System.getenv("COCOINDEX_TEST_POSTGRES_URL");
    if (url == null) {
      if ("true".equals(System.getenv("CI"))) {
        org.junit.jupiter.api.Assertions.fail("COCOINDEX_TEST_POSTGRES_URL is not set but CI=true");
      }
      org.junit.jupiter.api.Assumptions.abort("COCOINDEX_TEST_POSTGRES_URL is not set");
    }
    String schema = "demo_" + java.util.UUID.randomUUID().toString().replace("-", "");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
    String state = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    try {
      Result first = cli("--state", state, "--target", url, "update", "--source",
          source.toString());
      assertThat(first.exit()).as(first.out()).isZero();
      assertThat(row(first.out(), "summary files")).isEqualTo("248 0 0 0");
      Result again = cli("--state", state, "--target", url, "update", "--source",
          source.toString());
      assertThat(row(again.out(), "postgres rows (chunks)"))
          .isEqualTo("0 0 0 " + row(first.out(), "postgres rows (chunks)").split(" ")[0]);
      assertThat(cli("--target", url, "search", "json", "encoder").out())
          .contains("library/json.txt");
      Result drop = cli("--state", state, "--target", url, "drop", "--source", source.toString());
      assertThat(drop.exit()).as(drop.out()).isZero();
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

  @Test
  void missingSourceFolderIsAClearErrorAndChangesNothing() {
    Result run = cli("update", "--source", tmp.resolve("nope").toString());
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).contains("source folder").contains("does not exist");
    assertThat(home.resolve("index.sqlite")).doesNotExist();
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
