package io.cocoindex.samples.annotated;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Ctx;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.samples.annotated.LoggedConnectors.Log;
import io.cocoindex.samples.annotated.NestedFolders.DriveHandler;
import io.cocoindex.samples.annotated.NestedFolders.DriveSpec;
import io.cocoindex.samples.annotated.NestedFolders.Item;
import io.cocoindex.samples.annotated.NestedFolders.Tag;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Containers nested in containers through the generated API of {@code @NestedContainer}: a drive
 * holding a file and a folder {@code docs}, which holds a file, a tag and a folder {@code deep}
 * holding a file. {@code docs} is mounted (committed at once), {@code deep} declared in the
 * calling component (resolved when it commits). Exact sink logs.
 */
class NestedContainerConnectorTest {
  @TempDir Path tmp;
  final Log log = new Log();
  final DriveHandler drives = new DriveHandler(log);
  /** What the next run declares. */
  boolean withDocs = true;
  String deepText = "c1";
  App app;

  void main(Ctx ctx) {
    DriveTarget drive = Drives.register(ctx, drives)
        .mountDrive(ctx, new DriveSpec("d"));
    drive.declareItem(ctx, Item.file("a", "a1"));
    if (withDocs) {
      FolderTarget docs = drive.mountFolder(ctx, Item.folder("docs"));
      docs.declareItem(ctx, Item.file("b", "b1"));
      docs.declareTag(ctx, new Tag("red"));
      FolderTarget deep = docs.declareFolder(ctx, Item.folder("deep"));
      deep.declareItem(ctx, Item.file("c", deepText));
    }
  }

  App app() {
    app = App.create(
        "nested", Environment.builder().dbPath(tmp.resolve("state")).build(), this::main);
    return app;
  }

  @AfterEach
  void close() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void createsEveryLevelParentsFirst() {
    app().update();
    List<String> applied = log.take();
    assertThat(applied)
        .containsExactlyInAnyOrder(
            "create drive d",
            "create file d/a=a1",
            "create folder d/docs",
            "create file d/docs/b=b1",
            "create tag d/docs#red",
            "create folder d/docs/deep",
            "create file d/docs/deep/c=c1");
    // Mounted, the drive and docs are committed before anything is declared into them.
    assertThat(applied.subList(0, 2)).containsExactly("create drive d", "create folder d/docs");
    assertThat(applied.indexOf("create folder d/docs/deep"))
        .isLessThan(applied.indexOf("create file d/docs/deep/c=c1"));
  }

  @Test
  void anUpdateDeepDownWritesItAndRefreshesTheContainersAbove() {
    App app = app();
    app.update();
    log.take();

    deepText = "c2";
    app.update();
    assertThat(log.take())
        .containsExactlyInAnyOrder(
            "update drive d",
            "update folder d/docs",
            "update folder d/docs/deep",
            "update file d/docs/deep/c=c2");
  }

  @Test
  void anUnchangedRerunSendsNothingButTheContainersRefreshes() {
    App app = app();
    app.update();
    log.take();

    app.update();
    assertThat(log.take())
        .containsExactlyInAnyOrder(
            "update drive d", "update folder d/docs", "update folder d/docs/deep");
  }

  @Test
  void aNestedContainerNoLongerDeclaredRunsOnlyItsDelete() {
    App app = app();
    app.update();
    log.take();

    withDocs = false;
    app.update();
    // Not its file, its tag, its folder deep nor deep's file: their tracking goes with docs.
    assertThat(log.take()).containsExactlyInAnyOrder("update drive d", "delete folder d/docs");

    app.update();
    assertThat(log.take()).containsExactly("update drive d");
  }

  @Test
  void previewPlansEveryNestedLevelAndAppliesNothing() {
    App app = app();
    List<String> planned = app.preview().actions().stream()
        .map(p -> p.provider() + " " + p.action().verb() + " " + p.key())
        .toList();
    assertThat(planned)
        .containsExactlyInAnyOrder(
            "test/drives create \"d\"",
            "test/drives/d create \"a\"",
            "test/drives/d create \"docs\"",
            "test/drives/d/docs create \"b\"",
            "test/drives/d/docs@tag create \"red\"",
            "test/drives/d/docs create \"deep\"",
            "test/drives/d/docs/deep create \"c\"");
    assertThat(log.take()).isEmpty();

    app.update();
    assertThat(log.take()).hasSize(7);
  }
}
