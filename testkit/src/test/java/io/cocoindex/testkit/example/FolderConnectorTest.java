package io.cocoindex.testkit.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.testkit.CocoIndexExtension;
import io.cocoindex.testkit.RecordingSink;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A container connector tested with {@link RecordingSink}: the handler builds its sinks around
 * its generated child-handler factory and takes the I/O as appliers, so the test passes
 * {@link RecordingSink#applier()} for both the folders and the notes.
 */
class FolderConnectorTest {
  static final String FOLDERS = "example.com/notes/folder";

  @RegisterExtension final CocoIndexExtension coco = CocoIndexExtension.builder().build();

  final RecordingSink<FolderAction> folders = RecordingSink.create(
      a -> a.name() + (a.refresh() ? " (refresh)" : a.delete() ? "" : " " + a.color()));
  final RecordingSink<NoteAction> notes = RecordingSink.create(
      a -> a.folder() + "/" + a.title() + (a.text() == null ? "" : "=" + a.text()));
  final FolderHandler handler = new FolderHandler(folders.applier(), notes.applier());

  /** Folder name -> (note title -> text): the source the app declares. */
  final Map<String, Map<String, String>> source = new TreeMap<>();

  App app() {
    return coco.app(ctx -> {
      Folders api = Folders.register(ctx, handler);
      source.forEach((name, texts) -> {
        FolderTarget folder = api.mountFolder(ctx, new Folder(name, "blue"));
        // One component per note, so a failing note fails alone.
        texts.forEach((title, text) -> ctx.mount(java.util.List.of(name, title),
            c -> folder.declareNote(c, new Note(title, text))));
      });
    });
  }

  @Test
  void createsTheFolderThenItsNotes() {
    source.put("inbox", new TreeMap<>(Map.of("a", "1", "b", "2")));
    assertThat(coco.update(app())).containsExactly(
        FOLDERS + " create \"inbox\"",
        FOLDERS + "/inbox create \"a\"",
        FOLDERS + "/inbox create \"b\"");
    assertThat(folders.take()).containsExactly("create inbox blue");
    assertThat(notes.take()).containsExactly("create inbox/a=1", "create inbox/b=2");
  }

  @Test
  void anUnchangedRerunSendsOnlyTheFoldersRefresh() {
    source.put("inbox", new TreeMap<>(Map.of("a", "1")));
    App app = app();
    coco.update(app);
    folders.take();
    notes.take();

    // The container's Update of every run is applied (and listed), and counted as unchanged.
    UpdateStats stats = coco.updateWithStats(app);
    assertThat(coco.takeApplied()).containsExactly(FOLDERS + " update \"inbox\"");
    assertThat(stats.of(FOLDERS).changed()).isZero();
    assertThat(stats.of(FOLDERS).unchanged()).isEqualTo(1);
    assertThat(folders.take()).containsExactly("update inbox (refresh)");
    assertThat(notes.take()).isEmpty();
  }

  @Test
  void anEditedNoteIsUpdatedAlone() {
    source.put("inbox", new TreeMap<>(Map.of("a", "1", "b", "2")));
    App app = app();
    assertThat(coco.updateTwice(app, () -> source.get("inbox").put("b", "2b"))).containsExactly(
        FOLDERS + " update \"inbox\"", // the refresh
        FOLDERS + "/inbox update \"b\"");
    assertThat(notes.take()).containsExactly("create inbox/a=1", "create inbox/b=2",
        "update inbox/b=2b");
  }

  @Test
  void aFailingNoteFailsAloneAndTheNextRunAppliesIt() {
    source.put("inbox", new TreeMap<>(Map.of("a", "1", "b", "2")));
    App app = app();
    notes.failWhen(a -> a.title().equals("b"));
    assertThatThrownBy(() -> coco.update(app)).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("scripted failure on inbox/b=2");
    assertThat(notes.take()).containsExactly("create inbox/a=1");

    notes.heal();
    // The failed create left its record possible (prevMayBeMissing): StateDiff says UPSERT.
    assertThat(coco.update(app)).containsExactly(
        FOLDERS + " update \"inbox\"", FOLDERS + "/inbox update \"b\"");
    assertThat(notes.take()).containsExactly("update inbox/b=2");
  }

  @Test
  void aRemovedFolderIsOneDeleteItsNotesGoWithIt() {
    source.put("inbox", new TreeMap<>(Map.of("a", "1")));
    source.put("later", new TreeMap<>(Map.of("x", "9")));
    App app = app();
    assertThat(coco.updateTwice(app, () -> source.remove("later"))).containsExactly(
        FOLDERS + " delete \"later\"",
        FOLDERS + " update \"inbox\"");
    assertThat(folders.take()).containsExactly(
        "create inbox blue", "create later blue", "delete later", "update inbox (refresh)");
    assertThat(notes.take()).containsExactly("create inbox/a=1", "create later/x=9");
  }

  @Test
  void previewResolvesTheNotesHandlerWithoutApplying() {
    source.put("inbox", new TreeMap<>(Map.of("a", "1")));
    assertThat(app().preview().changes()).hasSize(2);
    assertThat(folders.calls()).isZero();
    assertThat(notes.calls()).isZero();
  }
}
