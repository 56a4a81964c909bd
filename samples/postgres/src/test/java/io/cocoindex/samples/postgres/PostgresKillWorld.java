package io.cocoindex.samples.postgres;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.statediff.ManagedBy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The declared tables of one generation of {@link PostgresKillTest} in one schema, from a seed:
 * up to three tables with about 330 rows in all, declared in components of 15 rows. Between
 * generations rows are added, changed and removed, and now and then the schema changes: {@code
 * docs} gains a column, loses one, has one retyped in place ({@code integer} to {@code bigint}
 * or {@code text}) or by drop and re-add ({@code text} back to {@code integer}, which the values
 * refuse) or its primary key changed (a recreate); {@code items} is renamed {@code goods} and
 * back, or gains a column; {@code notes} comes and goes; indexes are added, removed and changed
 * (columns, unique, access method); the view of the SQL command {@code listing} moves between
 * tables and the one of {@code recent} changes or goes.
 *
 * @param schema the PostgreSQL schema of every table
 * @param tables the declared tables, by name
 */
record PostgresKillWorld(String schema, Map<String, Table> tables) {
  static final ContextKey<DataSource> DB = ContextKey.of("kill_db", DataSource.class);

  /**
   * A declared table.
   *
   * @param spec its spec
   * @param rows its rows, each its columns' Java values (Long, Integer, Double, String, null) by
   *     name, in the order of their primary keys
   * @param indexes its indexes
   * @param commands its SQL commands
   */
  record Table(TableSpec spec, List<Map<String, Object>> rows, List<IndexSpec> indexes,
      List<SqlCommand> commands) {
    void declare(Ctx ctx, Tables tables) {
      TableTarget table = tables.mountTable(ctx, spec);
      indexes.forEach(i -> table.declareIndex(ctx, i));
      commands.forEach(c -> table.declareSqlCommand(ctx, c));
      // Components of 15 rows by id among every possible row, so a row stays in its component
      // from one generation to the next.
      Map<Long, List<Row>> parts = new TreeMap<>();
      for (Map<String, Object> row : rows) {
        Map<String, SqlValue> values = new LinkedHashMap<>();
        row.forEach((k, v) -> values.put(k, SqlValue.of(v)));
        parts.computeIfAbsent((Long) row.get("id") / 15, p -> new ArrayList<>())
            .add(Row.of(spec, values));
      }
      parts.forEach((part, rs) -> ctx.mount(List.of(spec.table(), part),
          c -> rs.forEach(r -> table.declareRow(c, r))));
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

  private static ColumnDef col(String name, String type) {
    return new ColumnDef(name, type);
  }

  /** The world of {@code generation} from {@code seed}, in {@code schema}. */
  static PostgresKillWorld of(String schema, long seed, int generation) {
    Map<String, Table> tables = new LinkedHashMap<>();
    // 0: year integer; 1: + score; 2: year text; 3: no year; 4: primary key (id, title);
    // 5: year bigint.
    int docsShape = pick(seed, 1, generation, 2, 6);
    boolean notesDeclared = pick(seed, 2, generation, 3, 3) != 0;
    int itemsShape = pick(seed, 3, generation, 2, 4); // 0: none; 1, 2: items; 3: goods
    boolean itemsStocked = pick(seed, 4, generation, 3, 2) == 0;
    int listing = pick(seed, 6, generation, 2, 4); // none, docs, items, notes
    int recent = pick(seed, 7, generation, 3, 3); // none, two versions
    int docIndexes = pick(seed, 8, generation, 2, 4);
    int otherIndexes = pick(seed, 9, generation, 2, 4);

    // docs
    String yearType = switch (docsShape) {
      case 2 -> "text";
      case 3 -> null;
      case 5 -> "bigint";
      default -> "integer";
    };
    List<ColumnDef> docColumns = new ArrayList<>(List.of(col("id", "bigint"),
        col("title", "text")));
    if (yearType != null) {
      docColumns.add(col("year", yearType));
    }
    docColumns.add(col("body", "text"));
    if (docsShape == 1) {
      docColumns.add(col("score", "double precision"));
    }
    List<String> docKey = docsShape == 4 ? List.of("id", "title") : List.of("id");
    List<IndexSpec> docIdx = new ArrayList<>();
    if (docIndexes != 0) {
      docIdx.add(docIndexes == 1 ? IndexSpec.btree("by_title", "title")
          : IndexSpec.btree("by_title", "title", "id"));
    }
    if (docIndexes >= 2) {
      docIdx.add(new IndexSpec("uniq", List.of("id", "title"), true, "btree"));
    }
    if (docIndexes == 3 && yearType != null) {
      docIdx.add(new IndexSpec("by_year", List.of("year"), false, "hash"));
    }
    List<SqlCommand> docCommands = new ArrayList<>();
    if (recent != 0) {
      docCommands.add(new SqlCommand("recent", "CREATE OR REPLACE VIEW " + q(schema)
          + ".docs_recent AS SELECT id, title FROM " + q(schema) + ".docs WHERE id < "
          + (recent == 1 ? 50 : 100), "DROP VIEW IF EXISTS " + q(schema) + ".docs_recent"));
    }
    if (listing == 1) {
      docCommands.add(listing(schema, "SELECT id AS k, title AS label FROM " + q(schema)
          + ".docs"));
    }
    List<Map<String, Object>> docs = new ArrayList<>();
    for (long n = 0; n < 150; n++) {
      SplittableRandom r = random(seed, 101, n, generation);
      if (r.nextInt(6) == 0) {
        continue;
      }
      int version = r.nextInt(3) == 0 ? generation : 0;
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", n);
      row.put("title", "title " + n + " v" + version);
      int year = 1990 + (int) ((n + version) % 30);
      if (yearType != null) {
        row.put("year", switch (yearType) {
          case "text" -> "y" + year;
          case "bigint" -> (long) year;
          default -> year;
        });
      }
      row.put("body", r.nextInt(4) == 0 ? null
          : ("body " + n + " v" + version + " ").repeat(1 + r.nextInt(20)));
      if (docsShape == 1) {
        row.put("score", version * 0.25 + n);
      }
      docs.add(row);
    }
    tables.put("docs", new Table(spec(schema, "docs", docColumns, docKey), docs, docIdx,
        docCommands));

    // items, or goods
    if (itemsShape != 0) {
      String name = itemsShape == 3 ? "goods" : "items";
      List<ColumnDef> columns = new ArrayList<>(List.of(col("id", "bigint"), col("name", "text"),
          col("price", "double precision")));
      if (itemsStocked) {
        columns.add(col("stock", "bigint"));
      }
      List<Map<String, Object>> items = new ArrayList<>();
      for (long n = 0; n < 100; n++) {
        SplittableRandom r = random(seed, 102, n, generation);
        if (r.nextInt(5) == 0) {
          continue;
        }
        int version = r.nextInt(4) == 0 ? generation : 0;
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", n);
        row.put("name", "item " + n + " v" + version);
        row.put("price", n * 0.5 + version);
        if (itemsStocked) {
          row.put("stock", n * 3 + version);
        }
        items.add(row);
      }
      List<IndexSpec> idx = switch (otherIndexes) {
        case 1 -> List.of(IndexSpec.btree("by_name", "name"));
        case 2 -> List.of(IndexSpec.btree("by_name", "price", "name"));
        case 3 -> List.of(new IndexSpec("by_name", List.of("name"), false, "hash"));
        default -> List.of();
      };
      List<SqlCommand> commands = listing == 2 ? List.of(listing(schema,
          "SELECT id AS k, name AS label FROM " + q(schema) + "." + name)) : List.of();
      tables.put(name, new Table(spec(schema, name, columns, List.of("id")), items, idx,
          commands));
    }

    // notes
    if (notesDeclared) {
      List<Map<String, Object>> notes = new ArrayList<>();
      for (long n = 0; n < 80; n++) {
        SplittableRandom r = random(seed, 103, n, generation);
        if (r.nextInt(4) == 0) {
          continue;
        }
        int version = r.nextInt(3) == 0 ? generation : 0;
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", n);
        row.put("doc", (n * 7) % 150);
        row.put("text", "note " + n + " v" + version);
        notes.add(row);
      }
      List<IndexSpec> idx = otherIndexes == 1
          ? List.of(new IndexSpec("by_doc", List.of("doc"), false, "hash"))
          : otherIndexes == 2 ? List.of(IndexSpec.btree("by_doc", "doc")) : List.of();
      List<SqlCommand> commands = listing == 3 ? List.of(listing(schema,
          "SELECT id AS k, text AS label FROM " + q(schema) + ".notes")) : List.of();
      tables.put("notes", new Table(spec(schema, "notes", List.of(col("id", "bigint"),
          col("doc", "bigint"), col("text", "text")), List.of("id")), notes, idx, commands));
    }
    return new PostgresKillWorld(schema, tables);
  }

  private static TableSpec spec(String schema, String table, List<ColumnDef> columns,
      List<String> primaryKey) {
    return new TableSpec(DB.name(), schema, table, columns, primaryKey, ManagedBy.SYSTEM);
  }

  private static SqlCommand listing(String schema, String select) {
    return new SqlCommand("listing", "CREATE OR REPLACE VIEW " + q(schema) + ".listing AS "
        + select, "DROP VIEW IF EXISTS " + q(schema) + ".listing");
  }

  private static String q(String identifier) {
    return "\"" + identifier + "\"";
  }

  /** Declares the world in the database the context's {@link #DB} provides. */
  Consumer<Ctx> main() {
    return ctx -> {
      Tables t = Tables.register(ctx, TableHandler.of(ctx, DB));
      tables.values().forEach(table -> table.declare(ctx, t));
    };
  }

  /**
   * What each view selects, by name: {@code k|label} of {@code listing}, {@code id|title} of
   * {@code docs_recent}, sorted by the first.
   */
  Map<String, List<String>> views() {
    Map<String, List<String>> out = new TreeMap<>();
    tables.forEach((name, t) -> t.commands().forEach(c -> {
      List<String> selected = new ArrayList<>();
      t.rows().stream().sorted((a, b) -> Long.compare((Long) a.get("id"), (Long) b.get("id")))
          .forEach(row -> {
            long id = (Long) row.get("id");
            if (c.name().equals("recent")) {
              if (id < (c.setup().endsWith("< 50") ? 50 : 100)) {
                selected.add(id + "|" + row.get("title"));
              }
            } else {
              selected.add(id + "|" + row.get(name.equals("docs") ? "title"
                  : name.equals("notes") ? "text" : "name"));
            }
          });
      out.put(c.name().equals("recent") ? "docs_recent" : "listing", selected);
    }));
    return out;
  }

  /** E.g. {@code docs(id bigint, ... key [id], 120 rows, indexes [...], commands [recent])}. */
  @Override
  public String toString() {
    List<String> out = new ArrayList<>();
    tables.forEach((name, t) -> out.add(name + "(" + t.spec().columns().stream()
        .map(c -> c.name() + " " + c.type()).toList() + ", key " + t.spec().primaryKey() + ", "
        + t.rows().size() + " rows, indexes " + t.indexes().stream()
            .map(i -> i.name() + (i.unique() ? " unique " : " ") + i.method() + i.columns())
            .toList()
        + ", commands " + t.commands().stream().map(SqlCommand::name).toList() + ")"));
    return String.join(" ", out);
  }
}
