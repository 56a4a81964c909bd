package io.cocoindex.reliability;

import io.cocoindex.StableKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The declared data of the crash harness, a pure function of (seed, generation): generation 0
 * is built from the seed, and each next generation applies random edits to the previous one
 * (components added and removed, rows and files created, changed, deleted and moved between
 * components, attachments toggled and changed), so crashes hit creates, updates and deletes.
 */
final class World {
  record Doc(String id, String title, String body, long n) {}

  record Tag(String doc, String tag, long weight) {}

  /** What one processing component declares. */
  static final class Comp {
    final TreeMap<String, Doc> docs = new TreeMap<>();
    final TreeMap<String, Tag> tags = new TreeMap<>(); // key doc|tag
    final TreeMap<String, String> files = new TreeMap<>(); // in the root output directory
    boolean subdir; // a subdirectory named after the component, with subFiles
    final TreeMap<String, String> subFiles = new TreeMap<>();
    /** The text of a file named after the component, where its subdirectory was; or null. */
    String subdirFile;
    /** Files it declares in the shared directory, while that is a directory. */
    final TreeMap<String, String> sharedFiles = new TreeMap<>();

    /** Whether it declares nothing: evolve can take everything away from a component. */
    boolean declaresNothing() {
      return docs.isEmpty() && tags.isEmpty() && files.isEmpty() && !subdir
          && subdirFile == null && sharedFiles.isEmpty();
    }

    Comp copy() {
      Comp c = new Comp();
      c.docs.putAll(docs);
      c.tags.putAll(tags);
      c.files.putAll(files);
      c.subdir = subdir;
      c.subFiles.putAll(subFiles);
      c.subdirFile = subdirFile;
      c.sharedFiles.putAll(sharedFiles);
      return c;
    }
  }

  static final String[] WORDS = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"
  };

  final TreeMap<String, Comp> comps = new TreeMap<>();
  boolean tagIndex = true; // attachment index tags_by_tag on/off
  boolean titleIndexUnique; // index docs_by_title spec variant
  boolean ftsWithTitle; // FTS columns: (body) or (title, body)
  /** Whether "shared" is a directory (mounted by the root) or a file with sharedText. */
  boolean sharedDir = true;
  String sharedText = "shared";
  private int nextComp;
  private int nextItem;

  static World of(long seed, int generation) {
    Random r = new Random(seed);
    World w = new World();
    int n = 100;
    for (int i = 0; i < n; i++) {
      w.addComp(r);
    }
    // Odd seeds start with "shared" a file: a state declared without children first, which
    // becomes a container and back.
    w.sharedDir = Math.floorMod(seed, 2) == 0;
    for (int g = 1; g <= generation; g++) {
      w.evolve(new Random(seed * 1_000_003L + g));
    }
    return w;
  }

  private void addComp(Random r) {
    String name = String.format("c%04d", nextComp++);
    Comp c = new Comp();
    int docs = 8 + r.nextInt(5);
    for (int i = 0; i < docs; i++) {
      addDoc(c, r);
    }
    for (int i = 0; i < 3 + r.nextInt(3); i++) {
      c.files.put(name + "-" + (nextItem++) + ".txt", text(r, 6));
    }
    if (r.nextBoolean()) {
      c.subdir = true;
      for (int i = 0; i < 1 + r.nextInt(3); i++) {
        c.subFiles.put("f" + (nextItem++) + ".md", text(r, 4));
      }
    }
    for (int i = r.nextInt(3); i > 0; i--) {
      c.sharedFiles.put("s" + (nextItem++) + ".txt", text(r, 3));
    }
    comps.put(name, c);
  }

  private void addDoc(Comp c, Random r) {
    String id = "d" + (nextItem++);
    c.docs.put(id, new Doc(id, text(r, 3), text(r, 12), r.nextInt(1000)));
    for (int t = 0; t < r.nextInt(3); t++) {
      String tag = WORDS[r.nextInt(WORDS.length)];
      c.tags.put(id + "|" + tag, new Tag(id, tag, r.nextInt(10)));
    }
  }

  private static String text(Random r, int words) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < words; i++) {
      sb.append(i == 0 ? "" : " ").append(WORDS[r.nextInt(WORDS.length)]);
    }
    return sb.toString();
  }

  private void evolve(Random r) {
    List<String> names = new ArrayList<>(comps.keySet());
    for (int i = 0; i < 3 && !names.isEmpty(); i++) {
      comps.remove(names.remove(r.nextInt(names.size())));
    }
    for (int i = 0; i < 3; i++) {
      addComp(r);
    }
    names = new ArrayList<>(comps.keySet());
    for (int i = 0; i < 20; i++) {
      Comp c = comps.get(names.get(r.nextInt(names.size())));
      switch (r.nextInt(8)) {
        case 0:
          addDoc(c, r);
          break;
        case 1:
          if (!c.docs.isEmpty()) {
            String id = pick(r, c.docs);
            c.docs.remove(id);
            c.tags.keySet().removeIf(k -> k.startsWith(id + "|"));
          }
          break;
        case 2:
          if (!c.docs.isEmpty()) {
            String id = pick(r, c.docs);
            Doc d = c.docs.get(id);
            c.docs.put(id, new Doc(id, r.nextBoolean() ? text(r, 3) : d.title(), text(r, 12),
                d.n() + 1));
          }
          break;
        case 3:
          if (!c.tags.isEmpty()) {
            String k = pick(r, c.tags);
            if (r.nextBoolean()) {
              c.tags.remove(k);
            } else {
              Tag t = c.tags.get(k);
              c.tags.put(k, new Tag(t.doc(), t.tag(), t.weight() + 1));
            }
          }
          break;
        case 4:
          if (!c.files.isEmpty()) {
            String f = pick(r, c.files);
            if (r.nextInt(3) == 0) {
              c.files.remove(f);
            } else {
              c.files.put(f, text(r, 6));
            }
          }
          break;
        case 5: { // the subdirectory comes or goes, or becomes a file, or a file one
          int kind = c.subdir ? 1 : c.subdirFile != null ? 2 : 0; // none, directory, file
          kind = (kind + 1 + r.nextInt(2)) % 3;
          c.subdir = kind == 1;
          c.subFiles.clear();
          c.subdirFile = kind == 2 ? text(r, 5) : null;
          if (c.subdir) {
            c.subFiles.put("f" + (nextItem++) + ".md", text(r, 4));
          }
          break;
        }
        case 6:
          if (r.nextBoolean()) { // a shared file added, changed or removed
            if (c.sharedFiles.isEmpty() || r.nextInt(3) == 0) {
              c.sharedFiles.put("s" + (nextItem++) + ".txt", text(r, 3));
            } else if (r.nextBoolean()) {
              c.sharedFiles.remove(pick(r, c.sharedFiles));
            } else {
              c.sharedFiles.put(pick(r, c.sharedFiles), text(r, 3));
            }
          } else if (c.subdir) {
            c.subFiles.put("f" + (nextItem++) + ".md", text(r, 4));
            if (c.subFiles.size() > 3) {
              c.subFiles.remove(c.subFiles.firstKey());
            }
          }
          break;
        default: { // move a doc, its tags and a file to another component: ownership transfer
          Comp to = comps.get(names.get(r.nextInt(names.size())));
          if (to != c && !c.docs.isEmpty()) {
            String id = pick(r, c.docs);
            to.docs.put(id, c.docs.remove(id));
            for (String k : new ArrayList<>(c.tags.keySet())) {
              if (k.startsWith(id + "|")) {
                to.tags.put(k, c.tags.remove(k));
              }
            }
          }
          if (to != c && !c.files.isEmpty()) {
            String f = pick(r, c.files);
            to.files.put(f, c.files.remove(f));
          }
        }
      }
    }
    if (r.nextInt(4) == 0) {
      tagIndex = !tagIndex;
    }
    if (r.nextInt(6) == 0) {
      titleIndexUnique = !titleIndexUnique;
    }
    if (r.nextInt(8) == 0) {
      ftsWithTitle = !ftsWithTitle;
    }
    // The shared directory becomes a file (its files, some of removed components, taken
    // along and forgotten) and back, about every third generation.
    if (r.nextInt(3) == 0) {
      sharedDir = !sharedDir;
      sharedText = text(r, 4);
    }
  }

  private static String pick(Random r, TreeMap<String, ?> m) {
    List<String> keys = new ArrayList<>(m.keySet());
    return keys.get(r.nextInt(keys.size()));
  }

  /** Every doc row, by id. */
  Map<String, Doc> docs() {
    TreeMap<String, Doc> out = new TreeMap<>();
    comps.values().forEach(c -> out.putAll(c.docs));
    return out;
  }

  /** Every tag row, by "doc|tag". */
  Map<String, Tag> tags() {
    TreeMap<String, Tag> out = new TreeMap<>();
    comps.values().forEach(c -> out.putAll(c.tags));
    return out;
  }

  /** Every output file and directory by relative path; a directory maps to null. */
  Map<String, String> files() {
    TreeMap<String, String> out = new TreeMap<>();
    out.put("shared", sharedDir ? null : sharedText);
    comps.forEach((name, c) -> {
      out.putAll(c.files);
      if (c.subdir) {
        out.put(name, null);
        c.subFiles.forEach((f, text) -> out.put(name + "/" + f, text));
      } else if (c.subdirFile != null) {
        out.put(name, c.subdirFile);
      }
      if (sharedDir) {
        c.sharedFiles.forEach((f, text) -> out.put("shared/" + f, text));
      }
    });
    return out;
  }

  /** The names of the directories declared in the output directory. */
  java.util.Set<String> directories() {
    java.util.Set<String> out = new java.util.TreeSet<>();
    if (sharedDir) {
      out.add("shared");
    }
    comps.forEach((name, c) -> {
      if (c.subdir) {
        out.add(name);
      }
    });
    return out;
  }

  /**
   * The component declaring each state of a component, as "connector key" (the key printed as
   * {@link StableKey#toString} does): rows by their primary key, files and subdirectories by
   * name, a subdirectory's and the shared directory's files by theirs (every name is unique in
   * a world). The shared directory itself is the root's (or its mount's), and not listed.
   */
  Map<String, String> declaringComponents() {
    Map<String, String> out = new TreeMap<>();
    comps.forEach((name, c) -> {
      c.docs.keySet().forEach(id -> out.put("sqlite " + StableKey.of(id), name));
      c.tags.values().forEach(t -> out.put("sqlite "
          + new StableKey.Array(List.of(StableKey.of(t.doc()), StableKey.of(t.tag()))), name));
      c.files.keySet().forEach(f -> out.put("localfs " + StableKey.of(f), name));
      if (c.subdir) {
        out.put("localfs " + StableKey.of(name), name);
        c.subFiles.keySet().forEach(f -> out.put("localfs " + StableKey.of(f), name));
      } else if (c.subdirFile != null) {
        out.put("localfs " + StableKey.of(name), name);
      }
      if (sharedDir) {
        c.sharedFiles.keySet().forEach(f -> out.put("localfs " + StableKey.of(f), name));
      }
    });
    return out;
  }

  /** How many target states the store must track after a clean run. */
  int stateCount() {
    int attachments = 2 + (tagIndex ? 1 : 0); // docs_by_title, docs_fts, tags_by_tag
    return 2 + docs().size() + tags().size() + attachments + 1 + files().size();
  }
}
