package io.cocoindex.samples.sqlite;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The declared database of one generation of {@link SqliteKillTest}, from a seed: up to three
 * tables with about 330 rows in all, declared in components of 15 rows. Between generations rows
 * are added, changed and removed, and now and then the schema changes: {@code docs} gains a
 * column, has one retyped or dropped (a rebuild) or its primary key changed (a recreate);
 * {@code items} is renamed {@code goods} and back, or gains a column; {@code notes} comes and
 * goes; indexes are added, removed and changed; the full-text index {@code search_fts} moves
 * between tables, changes its columns or goes; the view of the SQL command {@code listing}
 * moves between tables and the one of {@code recent} changes or goes.
 *
 * @param tables the declared tables, by name
 */
record SqliteKillWorld(Map<String, Table<?>> tables) {
  static final ContextKey<SqliteDatabase> DB = ContextKey.of("kill_db", SqliteDatabase.class);

  // docs, in its five shapes: the columns of Doc, one added, one retyped, one dropped, and
  // another primary key.
  record Doc(String id, String title, long year, String body) {}

  record DocScored(String id, String title, long year, String body, double score) {}

  record DocYearText(String id, String title, String year, String body) {}

  record DocNoYear(String id, String title, String body) {}

  record DocKeyed(String id, String title, long year, String body) {}

  record Item(long id, String name, double price) {}

  record ItemStocked(long id, String name, double price, long stock) {}

  record Note(long id, String doc, String text) {}

  /**
   * A declared table.
   *
   * @param schema its schema
   * @param rows its rows, each the record the schema reads
   * @param indexes its indexes
   * @param fullTextIndexes its full-text indexes
   * @param commands its SQL commands
   */
  record Table<T extends Record>(TableSchema<T> schema, List<T> rows, List<IndexSpec> indexes,
      List<FullTextIndex> fullTextIndexes, List<SqlCommand> commands) {
    /** The primary-key columns, in key order. */
    List<String> primaryKey() {
      return schema.spec("").primaryKey();
    }

    /** Each row as its columns' values (Long, Double, String), by its primary-key values. */
    Map<List<Object>, List<Object>> expectedRows() {
      Map<List<Object>, List<Object>> out = new LinkedHashMap<>();
      List<String> names = schema.columns().stream().map(ColumnSpec::name).toList();
      for (T row : rows) {
        List<Object> values = new ArrayList<>();
        for (SqlValue v : schema.row(row).values()) {
          values.add(v.toJava());
        }
        List<Object> key = new ArrayList<>();
        for (String pk : primaryKey()) {
          key.add(values.get(names.indexOf(pk)));
        }
        out.put(key, values);
      }
      return out;
    }

    void declare(Ctx ctx, Sqlite sqlite) {
      SqliteTable<T> table = sqlite.mountTable(ctx, schema);
      indexes.forEach(i -> table.declareIndex(ctx, i));
      fullTextIndexes.forEach(f -> table.declareFullTextIndex(ctx, f));
      commands.forEach(c -> table.declareSqlCommand(ctx, c));
      // Components of 15 rows by position among every possible row, so a row stays in its
      // component from one generation to the next.
      Map<Long, List<T>> parts = new TreeMap<>();
      for (T row : rows) {
        parts.computeIfAbsent(position(row) / 15, p -> new ArrayList<>()).add(row);
      }
      parts.forEach((part, rs) -> ctx.mount(List.of(schema.name(), part),
          c -> rs.forEach(r -> table.declareRow(c, r))));
    }

    private static long position(Record row) {
      Object id = row instanceof Doc d ? d.id() : row instanceof DocScored d ? d.id()
          : row instanceof DocYearText d ? d.id() : row instanceof DocNoYear d ? d.id()
          : row instanceof DocKeyed d ? d.id() : row instanceof Item i ? i.id()
          : row instanceof ItemStocked i ? i.id() : ((Note) row).id();
      return id instanceof String s ? Long.parseLong(s.substring(1)) : (Long) id;
    }
  }

  /** A choice among {@code n} that holds for {@code period} generations, per feature. */
  private static int pick(long seed, int feature, int generation, int period, int n) {
    return random(seed, feature, generation / period).nextInt(n);
  }

  /**
   * A generator of its own for these numbers: {@link SplittableRandom} mixes its seed, where the
   * first numbers of {@code java.util.Random}s of nearby seeds are alike.
   */
  private static SplittableRandom random(long... parts) {
    long h = 0x9E3779B97F4A7C15L;
    for (long p : parts) {
      h = new SplittableRandom(h ^ p).nextLong();
    }
    return new SplittableRandom(h);
  }

  /** The world of {@code generation} from {@code seed}. */
  static SqliteKillWorld of(long seed, int generation) {
    Map<String, Table<?>> tables = new LinkedHashMap<>();
    int docsShape = pick(seed, 1, generation, 2, 5);
    boolean notesDeclared = pick(seed, 2, generation, 3, 3) != 0;
    int itemsShape = pick(seed, 3, generation, 2, 4); // 0: none; 1, 2: items; 3: goods
    boolean itemsStocked = pick(seed, 4, generation, 3, 2) == 0;
    int fullText = pick(seed, 5, generation, 2, 4); // none, docs(title), docs(title, body), notes
    int listing = pick(seed, 6, generation, 2, 4); // none, docs, items, notes
    int recent = pick(seed, 7, generation, 3, 3); // none, two versions
    int docIndexes = pick(seed, 8, generation, 2, 4);
    int otherIndexes = pick(seed, 9, generation, 2, 3);

    // docs
    List<IndexSpec> docIdx = new ArrayList<>();
    if (docIndexes != 0) {
      docIdx.add(docIndexes == 1 ? IndexSpec.of("by_title", "title")
          : IndexSpec.of("by_title", "title", "id"));
    }
    if (docIndexes >= 2) {
      docIdx.add(new IndexSpec("docs_unique", List.of("id", "title"), true));
    }
    if (docIndexes == 3 && (docsShape == 0 || docsShape == 1 || docsShape == 4)) {
      docIdx.add(IndexSpec.of("by_year", "year"));
    }
    List<FullTextIndex> docFts = fullText == 1
        ? List.of(new FullTextIndex("search_fts", List.of("title")))
        : fullText == 2 ? List.of(new FullTextIndex("search_fts", List.of("title", "body")))
        : List.of();
    List<SqlCommand> docCommands = new ArrayList<>();
    if (recent != 0) {
      docCommands.add(new SqlCommand("recent", "CREATE VIEW docs_recent AS SELECT id, title FROM"
          + " docs WHERE id < '" + (recent == 1 ? "d050" : "d100") + "'",
          "DROP VIEW IF EXISTS docs_recent"));
    }
    if (listing == 1) {
      docCommands.add(listing("SELECT id AS k, title AS label FROM docs"));
    }
    List<Record> docs = new ArrayList<>();
    for (int n = 0; n < 150; n++) {
      SplittableRandom r = random(seed, 101, n, generation);
      if (r.nextInt(6) == 0) {
        continue;
      }
      int version = r.nextInt(3) == 0 ? generation : 0;
      String id = String.format("d%03d", n);
      String title = "w" + (n % 5) + " title " + n + " v" + version;
      long year = 1990 + (n + version) % 30;
      String body = r.nextInt(4) == 0 ? null : ("w" + (n % 7) + " body " + n + " v" + version + " ")
          .repeat(1 + r.nextInt(20));
      docs.add(switch (docsShape) {
        case 1 -> new DocScored(id, title, year, body, version * 0.25 + n);
        case 2 -> new DocYearText(id, title, "y" + year, body);
        case 3 -> new DocNoYear(id, title, body);
        case 4 -> new DocKeyed(id, title, year, body);
        default -> new Doc(id, title, year, body);
      });
    }
    TableSchema<?> docsSchema = switch (docsShape) {
      case 1 -> TableSchema.of("docs", DocScored.class, "id");
      case 2 -> TableSchema.of("docs", DocYearText.class, "id");
      case 3 -> TableSchema.of("docs", DocNoYear.class, "id");
      case 4 -> TableSchema.of("docs", DocKeyed.class, "id", "title");
      default -> TableSchema.of("docs", Doc.class, "id");
    };
    tables.put("docs", table(docsSchema, docs, docIdx, docFts, docCommands));

    // items, or goods
    if (itemsShape != 0) {
      String name = itemsShape == 3 ? "goods" : "items";
      List<Record> items = new ArrayList<>();
      for (int n = 0; n < 100; n++) {
        SplittableRandom r = random(seed, 102, n, generation);
        if (r.nextInt(5) == 0) {
          continue;
        }
        int version = r.nextInt(4) == 0 ? generation : 0;
        String label = "item " + n + " v" + version;
        double price = n * 0.5 + version;
        items.add(itemsStocked ? new ItemStocked(n, label, price, n * 3L + version)
            : new Item(n, label, price));
      }
      List<IndexSpec> idx = otherIndexes == 0 ? List.of()
          : List.of(otherIndexes == 1 ? IndexSpec.of("by_name", "name")
              : IndexSpec.of("by_name", "price", "name"));
      List<SqlCommand> commands = listing == 2
          ? List.of(listing("SELECT CAST(id AS TEXT) AS k, name AS label FROM " + name))
          : List.of();
      TableSchema<?> schema = itemsStocked ? TableSchema.of(name, ItemStocked.class, "id")
          : TableSchema.of(name, Item.class, "id");
      tables.put(name, table(schema, items, idx, List.of(), commands));
    }

    // notes
    if (notesDeclared) {
      List<Record> notes = new ArrayList<>();
      for (int n = 0; n < 80; n++) {
        SplittableRandom r = random(seed, 103, n, generation);
        if (r.nextInt(4) == 0) {
          continue;
        }
        int version = r.nextInt(3) == 0 ? generation : 0;
        notes.add(new Note(n, String.format("d%03d", (n * 7) % 150),
            "w" + (n % 3) + " note " + n + " v" + version));
      }
      List<IndexSpec> idx = otherIndexes == 2 ? List.of(IndexSpec.of("by_doc", "doc"))
          : List.of();
      List<FullTextIndex> fts = fullText == 3
          ? List.of(new FullTextIndex("search_fts", List.of("text"))) : List.of();
      List<SqlCommand> commands = listing == 3
          ? List.of(listing("SELECT CAST(id AS TEXT) AS k, text AS label FROM notes"))
          : List.of();
      tables.put("notes", table(TableSchema.of("notes", Note.class, "id"), notes, idx, fts,
          commands));
    }
    return new SqliteKillWorld(tables);
  }

  private static SqlCommand listing(String select) {
    return new SqlCommand("listing", "CREATE VIEW listing AS " + select,
        "DROP VIEW IF EXISTS listing");
  }

  @SuppressWarnings("unchecked")
  private static <T extends Record> Table<T> table(TableSchema<?> schema, List<Record> rows,
      List<IndexSpec> indexes, List<FullTextIndex> fullText, List<SqlCommand> commands) {
    return new Table<>((TableSchema<T>) schema, (List<T>) (List<?>) rows, indexes, fullText,
        commands);
  }

  /** Declares the world in the database the context's {@link #DB} provides. */
  Consumer<Ctx> main() {
    return ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      tables.values().forEach(t -> t.declare(ctx, sqlite));
    };
  }

  /** The views the world's SQL commands make, by name, with the table each selects from. */
  Map<String, String> views() {
    Map<String, String> out = new TreeMap<>();
    tables.forEach((name, t) -> t.commands().forEach(c -> out.put(
        c.name().equals("recent") ? "docs_recent" : "listing", name)));
    return out;
  }

  /** The SQL of each view, by name: exactly as its command's setup wrote it. */
  Map<String, String> viewSql() {
    Map<String, String> out = new TreeMap<>();
    tables.values().forEach(t -> t.commands().forEach(c -> out.put(
        c.name().equals("recent") ? "docs_recent" : "listing", c.setup())));
    return out;
  }

  /** How many rows each view must return. */
  Map<String, Long> viewCounts() {
    Map<String, Long> out = new TreeMap<>();
    tables.forEach((name, t) -> t.commands().forEach(c -> {
      long n = t.rows().size();
      if (c.name().equals("recent")) {
        String bound = c.setup().substring(c.setup().lastIndexOf('\'') - 4,
            c.setup().lastIndexOf('\''));
        n = t.expectedRows().keySet().stream().map(k -> (String) k.get(0))
            .filter(id -> id.compareTo(bound) < 0).count();
      }
      out.put(c.name().equals("recent") ? "docs_recent" : "listing", n);
    }));
    return out;
  }

  /** E.g. {@code docs(DocScored, 120 rows, 2 indexes, fts [title], commands [recent])}. */
  @Override
  public String toString() {
    List<String> out = new ArrayList<>();
    tables.forEach((name, t) -> out.add(name + "(" + t.schema().columns().size() + " columns,"
        + " primary key " + t.primaryKey() + ", " + t.rows().size() + " rows, indexes "
        + t.indexes().stream().map(i -> i.name() + i.columns()).toList() + ", full-text "
        + t.fullTextIndexes().stream().map(f -> f.name() + f.columns()).toList() + ", commands "
        + t.commands().stream().map(SqlCommand::name).toList() + ")"));
    return String.join(" ", out);
  }
}
