package io.cocoindex.samples.annotated;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.ActionValue;
import io.cocoindex.annotation.Attachment;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.ContainerTarget;
import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.RootTarget;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.annotation.TrackingRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Connectors written with the annotations whose sinks log every applied action as {@code "<verb>
 * <what>"} into one shared log: a flat root (notes), a container (shelves) of children (books)
 * with an attachment (labels).
 */
final class LoggedConnectors {
  private LoggedConnectors() {}

  /** The applied actions, in order. */
  static final class Log {
    private final List<String> entries = Collections.synchronizedList(new ArrayList<>());

    void add(String entry) {
      entries.add(entry);
    }

    /** The entries logged since the last take. */
    List<String> take() {
      synchronized (entries) {
        List<String> out = List.copyOf(entries);
        entries.clear();
        return out;
      }
    }
  }

  /** Reconciles by equality of the value with the previous records. */
  static <V, A> TargetReconcileOutput<A, V> reconcileByEquality(
      V desired, List<V> prev, boolean prevMayBeMissing, A write, A delete, TargetActionSink<A> sink) {
    if (desired == null) {
      return prev.isEmpty() && !prevMayBeMissing
          ? null
          : TargetReconcileOutput.of(TargetAction.delete(delete), sink, null);
    }
    if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(write) : TargetAction.update(write), sink, desired);
  }

  static String keyText(StableKey key) {
    return key instanceof StableKey.Str s ? s.value() : key.toString();
  }

  // ---- flat root: notes

  @TargetValue
  record Note(@Key String id, String text) {}

  @ActionValue
  record NoteAction(String id, String text) {}

  @RootTarget(provider = "test/notes", name = "Note")
  static final class NoteHandler implements TargetHandler<Note, Note, NoteAction> {
    private final TargetActionSink<NoteAction> sink;

    NoteHandler(Log log) {
      sink =
          TargetActionSink.of(
              actions ->
                  actions.forEach(
                      a -> log.add(a.verb() + " note " + a.value().id()
                          + (a.value().text() == null ? "" : "=" + a.value().text()))));
    }

    @Override
    public TargetReconcileOutput<NoteAction, Note> reconcile(
        StableKey key, Note desired, List<Note> prev, boolean prevMayBeMissing) {
      String id = keyText(key);
      return reconcileByEquality(
          desired,
          prev,
          prevMayBeMissing,
          desired == null ? null : new NoteAction(id, desired.text()),
          new NoteAction(id, null),
          sink);
    }
  }

  // ---- container: shelves of books, books with labels

  @TargetValue
  record ShelfSpec(@Key String name, int generation) {}

  @ActionValue
  record ShelfAction(String name, boolean drop) {}

  @TrackingRecord
  record ShelfRecord(int generation) {}

  @TargetValue
  record Book(@Key String isbn, String title) {}

  @ActionValue
  record BookAction(String shelf, String isbn, String title) {}

  @TargetValue
  record Label(@Key String name, String color) {}

  @ActionValue
  record LabelAction(String shelf, String name, String color) {}

  @ContainerTarget(
      provider = "test/shelves",
      name = "Shelf",
      child = "Book",
      childValue = Book.class,
      api = "Shelves")
  static final class ShelfHandler implements TargetHandler<ShelfSpec, ShelfRecord, ShelfAction> {
    private final Log log;
    private final TargetActionSink<ShelfAction> sink;
    /** What a generation change does to the books; null = nothing. */
    volatile TargetChildInvalidation onGenerationChange;

    ShelfHandler(Log log) {
      this.log = log;
      this.sink =
          TargetActionSink.withChildHandler(
              actions ->
                  actions.forEach(
                      a -> log.add((a.value().drop() ? "drop" : "ensure") + " shelf " + a.value().name())),
              new LoggedConnectors_ShelfHandler_ChildHandlerFactory(this));
    }

    @ChildHandler
    BookHandler books(ShelfAction shelf) {
      return new BookHandler(shelf.name(), log);
    }

    @Override
    public TargetReconcileOutput<ShelfAction, ShelfRecord> reconcile(
        StableKey key, ShelfSpec desired, List<ShelfRecord> prev, boolean prevMayBeMissing) {
      String name = keyText(key);
      if (desired == null) {
        return TargetReconcileOutput.of(
            TargetAction.delete(new ShelfAction(name, true)), sink, null);
      }
      ShelfRecord record = new ShelfRecord(desired.generation());
      ShelfAction ensure = new ShelfAction(name, false);
      boolean changed = !prev.isEmpty() && !prev.contains(record);
      return new TargetReconcileOutput<>(
          prev.isEmpty() ? TargetAction.create(ensure) : TargetAction.update(ensure),
          sink,
          record,
          changed ? onGenerationChange : null);
    }
  }

  static final class BookHandler implements TargetHandler<Book, Book, BookAction> {
    private final String shelf;
    private final TargetActionSink<BookAction> sink;
    private final LabelHandler labels;

    BookHandler(String shelf, Log log) {
      this.shelf = shelf;
      this.sink =
          TargetActionSink.of(
              actions ->
                  actions.forEach(
                      a -> log.add(a.verb() + " book " + a.value().shelf() + "/" + a.value().isbn()
                          + (a.value().title() == null ? "" : "=" + a.value().title()))));
      this.labels = new LabelHandler(shelf, log);
    }

    @Attachment("label")
    LabelHandler label() {
      return labels;
    }

    @Override
    public Map<String, ChildTargetDef<?>> attachments() {
      return LoggedConnectors_BookHandler_Attachments.of(this);
    }

    @Override
    public TargetReconcileOutput<BookAction, Book> reconcile(
        StableKey key, Book desired, List<Book> prev, boolean prevMayBeMissing) {
      String isbn = keyText(key);
      return reconcileByEquality(
          desired,
          prev,
          prevMayBeMissing,
          desired == null ? null : new BookAction(shelf, isbn, desired.title()),
          new BookAction(shelf, isbn, null),
          sink);
    }
  }

  static final class LabelHandler implements TargetHandler<Label, Label, LabelAction> {
    private final String shelf;
    private final TargetActionSink<LabelAction> sink;

    LabelHandler(String shelf, Log log) {
      this.shelf = shelf;
      this.sink =
          TargetActionSink.of(
              actions ->
                  actions.forEach(
                      a -> log.add(a.verb() + " label " + a.value().shelf() + "/" + a.value().name()
                          + (a.value().color() == null ? "" : "=" + a.value().color()))));
    }

    @Override
    public TargetReconcileOutput<LabelAction, Label> reconcile(
        StableKey key, Label desired, List<Label> prev, boolean prevMayBeMissing) {
      String name = keyText(key);
      return reconcileByEquality(
          desired,
          prev,
          prevMayBeMissing,
          desired == null ? null : new LabelAction(shelf, name, desired.color()),
          new LabelAction(shelf, name, null),
          sink);
    }
  }
}
