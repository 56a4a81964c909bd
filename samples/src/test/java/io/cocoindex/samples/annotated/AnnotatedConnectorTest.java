package io.cocoindex.samples.annotated;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.samples.annotated.LoggedConnectors.Book;
import io.cocoindex.samples.annotated.LoggedConnectors.Label;
import io.cocoindex.samples.annotated.LoggedConnectors.Log;
import io.cocoindex.samples.annotated.LoggedConnectors.Note;
import io.cocoindex.samples.annotated.LoggedConnectors.NoteHandler;
import io.cocoindex.samples.annotated.LoggedConnectors.ShelfHandler;
import io.cocoindex.samples.annotated.LoggedConnectors.ShelfSpec;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connectors written with the annotations, run through the real engine with the generated
 * codecs, factories and declare APIs: exact sink logs.
 */
class AnnotatedConnectorTest {
  @TempDir Path tmp;
  final Log log = new Log();
  final NoteHandler notes = new NoteHandler(log);
  final ShelfHandler shelves = new ShelfHandler(log);
  /** What the next run declares. */
  final Map<String, String> declaredNotes = new LinkedHashMap<>();
  final Map<String, Map<String, String>> declaredBooks = new LinkedHashMap<>();
  final Map<String, Map<String, String>> declaredLabels = new LinkedHashMap<>();
  int generation = 1;
  boolean mount = true;
  App app;

  App app() {
    app =
        App.create(
            "annotated",
            Environment.builder().dbPath(tmp.resolve("state")).build(),
            ctx -> {
              Notes noteApi = Notes.register(ctx, notes);
              declaredNotes.forEach((id, text) -> noteApi.declareNote(ctx, new Note(id, text)));
              Shelves shelfApi = Shelves.register(ctx, shelves);
              declaredBooks.forEach(
                  (shelf, books) -> {
                    ShelfSpec spec = new ShelfSpec(shelf, generation);
                    ShelfTarget target =
                        mount ? shelfApi.mountShelf(ctx, spec) : shelfApi.declareShelf(ctx, spec);
                    books.forEach((isbn, title) -> target.declareBook(ctx, new Book(isbn, title)));
                    declaredLabels
                        .getOrDefault(shelf, Map.of())
                        .forEach((name, color) -> target.declareLabel(ctx, new Label(name, color)));
                  });
            });
    return app;
  }

  @AfterEach
  void close() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void flatRootCreatesUpdatesAndDeletes() {
    App app = app();
    declaredNotes.put("n1", "hello");
    declaredNotes.put("n2", "world");
    app.update();
    assertThat(log.take()).containsExactly("create note n1=hello", "create note n2=world");

    declaredNotes.put("n1", "hello again");
    declaredNotes.remove("n2");
    app.update();
    assertThat(log.take()).containsExactlyInAnyOrder("update note n1=hello again", "delete note n2");

    app.update();
    assertThat(log.take()).isEmpty();
  }

  @Test
  void mountedContainerDeclaresItsChildrenThroughTheGeneratedTarget() {
    App app = app();
    declaredBooks.put("fiction", Map.of("b1", "Dune"));
    app.update();
    assertThat(log.take()).containsExactly("ensure shelf fiction", "create book fiction/b1=Dune");

    declaredBooks.put("fiction", Map.of("b2", "Emma"));
    app.update();
    assertThat(log.take())
        .containsExactly(
            "ensure shelf fiction", "create book fiction/b2=Emma", "delete book fiction/b1");
  }

  @Test
  void containerDeclaredInTheSameComponentResolvesItsChildrenAtCommit() {
    mount = false;
    App app = app();
    declaredBooks.put("fiction", Map.of("b1", "Dune"));
    app.update();
    assertThat(log.take()).containsExactly("ensure shelf fiction", "create book fiction/b1=Dune");
  }

  @Test
  void attachmentOfTheChildHandlerIsDeclaredAndDeletedWhenNoLongerDeclared() {
    App app = app();
    declaredBooks.put("fiction", Map.of("b1", "Dune"));
    declaredLabels.put("fiction", Map.of("classics", "red"));
    app.update();
    assertThat(log.take())
        .containsExactlyInAnyOrder(
            "ensure shelf fiction", "create book fiction/b1=Dune", "create label fiction/classics=red");

    declaredLabels.remove("fiction");
    app.update();
    assertThat(log.take()).containsExactly("ensure shelf fiction", "delete label fiction/classics");
  }

  @Test
  void containerNoLongerDeclaredRunsOnlyItsDelete() {
    App app = app();
    declaredBooks.put("fiction", Map.of("b1", "Dune", "b2", "Emma"));
    app.update();
    log.take();

    declaredBooks.clear();
    app.update();
    assertThat(log.take()).containsExactly("drop shelf fiction");
  }

  @Test
  void destructiveInvalidationRecreatesEveryChild() {
    shelves.onGenerationChange = TargetChildInvalidation.DESTRUCTIVE;
    App app = app();
    declaredBooks.put("fiction", Map.of("b1", "Dune"));
    app.update();
    log.take();

    generation = 2;
    app.update();
    assertThat(log.take()).containsExactly("ensure shelf fiction", "create book fiction/b1=Dune");
  }

  @Test
  void previewPlansContainerChildrenAndAttachmentsWithoutApplying() {
    App app = app();
    declaredNotes.put("n1", "hello");
    declaredBooks.put("fiction", Map.of("b1", "Dune"));
    declaredLabels.put("fiction", Map.of("classics", "red"));
    List<String> planned =
        app.preview().actions().stream().map(p -> p.action().verb() + " " + p.key()).toList();
    assertThat(planned)
        .containsExactlyInAnyOrder(
            "create \"n1\"", "create \"fiction\"", "create \"b1\"", "create \"classics\"");
    assertThat(log.take()).isEmpty();
    assertThat(app.preview().actions()).extracting(PlannedAction::provider).contains("test/notes");
  }

  @Test
  void dropStateDeletesEveryTargetThroughTheHandlers() {
    App app = app();
    declaredNotes.put("n1", "hello");
    declaredBooks.put("fiction", Map.of("b1", "Dune"));
    app.update();
    log.take();

    app.dropState();
    assertThat(log.take()).containsExactlyInAnyOrder("delete note n1", "drop shelf fiction");
  }
}
