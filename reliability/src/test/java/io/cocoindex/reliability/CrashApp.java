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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The app of the crash harness: two SQLite tables ({@code docs} with an index and an FTS5
 * index, {@code tags} with an index that comes and goes) and one output directory with files,
 * per-component subdirectories (each of which may become a file and back) and a shared
 * directory the root mounts or declares as a file, declared by about a hundred components,
 * half of them memoized.
 * A third of them are mounted by the root; the others by six memoized groups ({@link #groupOf}),
 * which declare nothing themselves.
 */
final class CrashApp {
  static final ContextKey<SqliteDatabase> DB = ContextKey.of("crash_db", SqliteDatabase.class);
  static final TableSchema<World.Doc> DOCS = TableSchema.of("docs", World.Doc.class, "id");
  static final TableSchema<World.Tag> TAGS = TableSchema.of("tags", World.Tag.class, "doc", "tag");

  private CrashApp() {}

  /** The app's main; {@code interposer} (null for none) wraps the connectors' sinks. */
  static Consumer<Ctx> main(World w, Path outDir, Interposer interposer) {
    return main(w, outDir, interposer, null);
  }

  /**
   * The app's main, noting in {@code ran} (null for none) the name of every component and group
   * whose body runs: one that does not was a memo hit.
   */
  static Consumer<Ctx> main(World w, Path outDir, Interposer interposer, Set<String> ran) {
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
      // A directory the components declare into, or, in some generations, a file the root
      // declares in its place: a container declared without children (rule 8).
      Directory shared = w.sharedDir ? out.mountDir(ctx, "shared") : null;
      if (!w.sharedDir) {
        out.declareFile(ctx, "shared", w.sharedText);
      }
      Map<String, Map<String, World.Comp>> groups = new TreeMap<>();
      w.comps.forEach((name, c) -> {
        String group = groupOf(name);
        if (group == null) {
          mountComp(ctx, name, c, docs, tags, out, shared, ran);
        } else {
          groups.computeIfAbsent(group, g -> new TreeMap<>()).put(name, c);
        }
      });
      // Every group is memoized on what its subtree declares: its memo stands for its members'
      // commits, so a run killed after a member's commit and before the group's must not leave
      // the group's old memo to hit when the source goes back.
      groups.forEach((group, members) ->
          ctx.mountMemo(group, groupMemoInput(members, w.sharedDir), gc -> {
            noteRan(ran, group);
            members.forEach((name, c) -> mountComp(gc, name, c, docs, tags, out, shared, ran));
          }));
    };
  }

  /** Mounts one component, memoized or not, under {@code parent} (the root or a group). */
  private static void mountComp(Ctx parent, String name, World.Comp c,
      SqliteTable<World.Doc> docs, SqliteTable<World.Tag> tags, Directory out, Directory shared,
      Set<String> ran) {
    Consumer<Ctx> body = cc -> {
      noteRan(ran, name);
      c.docs.values().forEach(d -> docs.declareRow(cc, d));
      c.tags.values().forEach(t -> tags.declareRow(cc, t));
      c.files.forEach((f, text) -> out.declareFile(cc, f, text));
      if (c.subdir) {
        Directory sub = out.declareDir(cc, name);
        c.subFiles.forEach((f, text) -> sub.declareFile(cc, f, text));
      } else if (c.subdirFile != null) {
        out.declareFile(cc, name, c.subdirFile); // where its subdirectory was, or will be
      }
      if (shared != null) {
        c.sharedFiles.forEach((f, text) -> shared.declareFile(cc, f, text));
      }
    };
    // Half the components are memoized on what they declare: a kill must not leave a memo
    // that hides a deletion its run did not finish.
    if (memoized(name)) {
      parent.mountMemo(name, memoInput(c, shared != null), body);
    } else {
      parent.mount(name, body);
    }
  }

  private static void noteRan(Set<String> ran, String name) {
    if (ran != null) {
      ran.add(name);
    }
  }

  /** Whether component {@code comp} is memoized: half of them, by the low bit of its hash. */
  static boolean memoized(String comp) {
    return Math.floorMod(comp.hashCode(), 2) == 0;
  }

  /**
   * The group a component is mounted in ({@code g0} to {@code g5}), or null for a component
   * mounted by the root: about a third at the root, the rest in six groups. A function of the
   * name alone, so that a component stays where it is from one generation to the next, and
   * independent of whether it is memoized ({@link #memoized}).
   */
  static String groupOf(String comp) {
    int bucket = Math.floorMod(Integer.rotateLeft(comp.hashCode() * 0x9E3779B1, 13), 9);
    return bucket < 3 ? null : "g" + (bucket - 3);
  }

  /** The groups that have members in {@code w}. */
  static Set<String> groups(World w) {
    Set<String> out = new TreeSet<>();
    w.comps.keySet().forEach(name -> {
      String g = groupOf(name);
      if (g != null) {
        out.add(g);
      }
    });
    return out;
  }

  /** A group's memo input: everything its members declare, by member. */
  static Map<String, List<Object>> groupMemoInput(Map<String, World.Comp> members,
      boolean sharedDir) {
    Map<String, List<Object>> out = new TreeMap<>();
    members.forEach((name, c) -> out.put(name, memoInput(c, sharedDir)));
    return out;
  }

  /**
   * Everything a component declares, as its memo input: its shared files only while the shared
   * directory is one.
   */
  static List<Object> memoInput(World.Comp c, boolean sharedDir) {
    return List.of(c.docs, c.tags, c.files, c.subdir, c.subFiles,
        c.subdirFile == null ? "" : c.subdirFile, sharedDir ? c.sharedFiles : Map.of());
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
