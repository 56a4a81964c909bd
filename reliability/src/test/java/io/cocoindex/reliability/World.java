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

    /** Whether it declares nothing: evolve can take everything away from a component. */
    boolean declaresNothing() {
      return docs.isEmpty() && tags.isEmpty() && files.isEmpty() && !subdir;
    }

    Comp copy() {
      Comp c = new Comp();
      c.docs.putAll(docs);
      c.tags.putAll(tags);
      c.files.putAll(files);
      c.subdir = subdir;
      c.subFiles.putAll(subFiles);
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
  private int nextComp;
  private int nextItem;

  static World of(long seed, int generation) {
    Random r = new Random(seed);
    World w = new World();
    int n = 100;
    for (int i = 0; i < n; i++) {
      w.addComp(r);
    }
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
        case 5:
          c.subdir = !c.subdir;
          c.subFiles.clear();
          if (c.subdir) {
            c.subFiles.put("f" + (nextItem++) + ".md", text(r, 4));
          }
          break;
        case 6:
          if (c.subdir) {
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
    comps.forEach((name, c) -> {
      out.putAll(c.files);
      if (c.subdir) {
        out.put(name, null);
        c.subFiles.forEach((f, text) -> out.put(name + "/" + f, text));
      }
    });
    return out;
  }

  /**
   * The component declaring each state of a component, as "connector key" (the key printed as
   * {@link StableKey#toString} does): rows by their primary key, files and subdirectories by
   * name, a subdirectory's files by theirs (every name is unique in a world).
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
