package io.cocoindex.reliability;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.samples.localfs.Directory;
import io.cocoindex.samples.localfs.LocalFs;
import io.cocoindex.samples.sqlite.FullTextIndex;
import io.cocoindex.samples.sqlite.IndexSpec;
import io.cocoindex.samples.sqlite.Sqlite;
import io.cocoindex.samples.sqlite.SqliteDatabase;
import io.cocoindex.samples.sqlite.SqliteTable;
import io.cocoindex.samples.sqlite.TableSchema;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * The app of the crash harness: two SQLite tables ({@code docs} with an index and an FTS5
 * index, {@code tags} with an index that comes and goes) and one output directory with files and
 * per-component subdirectories, declared by about a hundred components, half of them memoized.
 */
final class CrashApp {
  static final ContextKey<SqliteDatabase> DB = ContextKey.of("crash_db", SqliteDatabase.class);
  static final TableSchema<World.Doc> DOCS = TableSchema.of("docs", World.Doc.class, "id");
  static final TableSchema<World.Tag> TAGS = TableSchema.of("tags", World.Tag.class, "doc", "tag");

  private CrashApp() {}

  /** The app's main; {@code interposer} (null for none) wraps the connectors' sinks. */
  static Consumer<Ctx> main(World w, Path outDir, Interposer interposer) {
    return ctx -> {
      Ctx reg = interposer == null ? ctx : interposer.ctx(ctx);
      Sqlite sqlite = Sqlite.register(reg, DB);
      LocalFs fs = LocalFs.register(reg);
      SqliteTable<World.Doc> docs = sqlite.mountTable(ctx, DOCS);
      SqliteTable<World.Tag> tags = sqlite.mountTable(ctx, TAGS);
      docs.declareIndex(ctx, titleIndex(w));
      docs.declareFullTextIndex(ctx, fts(w));
      if (w.tagIndex) {
        tags.declareIndex(ctx, IndexSpec.of("tags_by_tag", "tag"));
      }
      Directory out = fs.mountDir(ctx, outDir);
      w.comps.forEach((name, c) -> {
        Consumer<Ctx> body = cc -> {
          c.docs.values().forEach(d -> docs.declareRow(cc, d));
          c.tags.values().forEach(t -> tags.declareRow(cc, t));
          c.files.forEach((f, text) -> out.declareFile(cc, f, text));
          if (c.subdir) {
            Directory sub = out.declareDir(cc, name);
            c.subFiles.forEach((f, text) -> sub.declareFile(cc, f, text));
          }
        };
        // Half the components are memoized on what they declare: a kill must not leave a memo
        // that hides a deletion its run did not finish.
        if (Math.floorMod(name.hashCode(), 2) == 0) {
          ctx.mountMemo(name, memoInput(c), body);
        } else {
          ctx.mount(name, body);
        }
      });
    };
  }

  /** Everything a component declares, as its memo input. */
  static List<Object> memoInput(World.Comp c) {
    return List.of(c.docs, c.tags, c.files, c.subdir, c.subFiles);
  }

  static IndexSpec titleIndex(World w) {
    return w.titleIndexUnique
        ? new IndexSpec("docs_by_title", List.of("title", "n"), false)
        : IndexSpec.of("docs_by_title", "title");
  }

  static FullTextIndex fts(World w) {
    return new FullTextIndex("docs_fts", w.ftsWithTitle ? List.of("title", "body") : List.of("body"));
  }
}
