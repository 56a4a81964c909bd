package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.UpdateFailedException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reruns converge when what a run declares can only be applied once what it no longer declares
 * is gone (found by an adversarial review: each of these failed on every run), and a refactoring
 * that moves every row and the table's mount sends no statement.
 */
class ConvergenceTest {
  static final ContextKey<SqliteDatabase> DB = ContextKey.of("people_db", SqliteDatabase.class);

  record Person(String id, String email) {}

  @TempDir Path dir;
  SqliteDatabase db;
  final List<App> apps = new ArrayList<>();

  App app(Consumer<Ctx> main) {
    if (db == null) {
      db = SqliteDatabase.open(dir.resolve("target.sqlite"));
    }
    App app = App.create("people", Environment.builder().dbPath(dir.resolve("state"))
        .provide(DB, db).build(), main);
    apps.add(app);
    return app;
  }

  @AfterEach
  void close() throws Exception {
    apps.forEach(App::close);
    if (db != null) {
      db.close();
    }
  }

  /** Updates until a run succeeds, three at most; returns the failures before it. */
  static List<Throwable> updateUntilClean(App app) {
    List<Throwable> failures = new ArrayList<>();
    for (int run = 0; run < 3; run++) {
      try {
        app.update();
        break;
      } catch (UpdateFailedException e) {
        failures.add(e);
      }
    }
    return failures;
  }

  List<String> query(String sql) throws Exception {
    return SqlRows.of(db, sql);
  }

  /**
   * Run 1: people a and b (one component each) share an email. Run 2: b's source is gone (its
   * component is no longer mounted) and a UNIQUE index on email is declared in main, as the
   * README declares indexes. The declared state (a alone, unique emails) is consistent, yet the
   * index's creation needs b's row gone, which only the end-of-run sweep removes.
   */
  @Test
  void aUniqueIndexAddedWhileTheDuplicateRowsComponentIsRemovedConverges() throws Exception {
    Map<String, String> people = new TreeMap<>(Map.of("a", "x@example.com", "b", "x@example.com"));
    boolean[] unique = {false};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Person> t = sqlite.mountTable(ctx, TableSchema.of("people", Person.class, "id"));
      if (unique[0]) {
        t.declareIndex(ctx, new IndexSpec("people_email", List.of("email"), true));
      }
      people.forEach((id, email) -> ctx.mount(id, c -> t.declareRow(c, new Person(id, email))));
    });
    app.update();
    assertThat(query("SELECT id, email FROM people ORDER BY id"))
        .containsExactly("a|x@example.com", "b|x@example.com");

    people.remove("b");
    unique[0] = true;
    List<Throwable> failures = updateUntilClean(app);
    assertThat(query("SELECT id, email FROM people ORDER BY id"))
        .as("after %s failed runs: %s", failures.size(), failures)
        .containsExactly("a|x@example.com");
    assertThat(query("SELECT name FROM sqlite_master WHERE type='index' AND name='people_email'"))
        .containsExactly("people_email");
    assertThat(app.preview().changes()).isEmpty();
  }

  /**
   * The app is refactored: every component renamed, and the table mounted from a child component
   * instead of main. Every row and the table move as they are: no SQL statement at all, nothing
   * dropped.
   */
  @Test
  void renamingEveryComponentAndMovingTheTablesMountSendsNoStatement() throws Exception {
    Map<String, String> people = new TreeMap<>();
    for (int i = 0; i < 50; i++) {
      people.put("p" + i, "e" + i);
    }
    boolean[] refactored = {false};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Person> t = refactored[0]
          ? ctx.useMount("schema",
              c -> sqlite.mountTable(c, TableSchema.of("people", Person.class, "id")))
          : sqlite.mountTable(ctx, TableSchema.of("people", Person.class, "id"));
      people.forEach((id, email) -> ctx.mount(refactored[0] ? List.of("v2", id) : id,
          c -> t.declareRow(c, new Person(id, email))));
    });
    app.update();
    long before = db.statementsExecuted();
    refactored[0] = true;
    app.update();
    assertThat(db.statementsExecuted() - before).as("statements of the refactored run").isZero();
    assertThat(query("SELECT count(*) FROM people")).containsExactly("50");
    assertThat(app.preview().changes()).isEmpty();
    assertThat(app.status().total()).isEqualTo(51);
  }

  /**
   * The inverse: main declares the table, a UNIQUE index and the rows. Run 2 drops the index and
   * adds a row that duplicates an email. The insert needs the index gone, which the end-of-run
   * sweep removes although the component's insert failed: the next run inserts the row.
   */
  @Test
  void aUniqueIndexRemovedWhileADuplicateRowIsAddedInTheSameComponentConverges() throws Exception {
    Map<String, String> people = new TreeMap<>(Map.of("a", "x@example.com"));
    boolean[] unique = {true};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Person> t = sqlite.mountTable(ctx, TableSchema.of("people", Person.class, "id"));
      if (unique[0]) {
        t.declareIndex(ctx, new IndexSpec("people_email", List.of("email"), true));
      }
      people.forEach((id, email) -> t.declareRow(ctx, new Person(id, email)));
    });
    app.update();

    unique[0] = false;
    people.put("b", "x@example.com");
    List<Throwable> failures = updateUntilClean(app);
    assertThat(query("SELECT name FROM sqlite_master WHERE type='index' AND name='people_email'"))
        .as("after %s failed runs: %s", failures.size(), failures).isEmpty();
    assertThat(query("SELECT id, email FROM people ORDER BY id"))
        .containsExactly("a|x@example.com", "b|x@example.com");
  }
}
