package io.cocoindex.samples.sqlite;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.ContainerTarget;
import io.cocoindex.statediff.CompositeDiff;
import io.cocoindex.statediff.CompositeTrackingRecord;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SQLite tables as containers of rows. The tracking record is composite: the primary-key
 * signature plus one sub-record per column, compared with {@link StateDiff#diffComposite}:
 *
 * <ul>
 *   <li>primary key changed (REPLACE): drop and recreate, children {@code DESTRUCTIVE};
 *   <li>column added: {@code ALTER TABLE ADD COLUMN}, children {@code LOSSY} (every row is
 *       upserted once, filling the column in, memoized components' rows included);
 *   <li>column dropped or type changed: rebuild the table keeping what converts, children
 *       {@code LOSSY} (every row is upserted once, so data that did not convert is restored).
 * </ul>
 *
 * <p>A table no longer declared is dropped ("destroy"); a user-managed table is never created,
 * altered or dropped ("abandon"): only its rows and what the app declares on it are managed. No
 * longer declared, it keeps its rows, and loses the indexes, SQL commands and full-text indexes
 * this app made on it, found by the app they name ({@link MadeBy}, {@link SqlCommandRecords}).
 *
 * <p>A table's key is {@code [database, name]}, the database being a ContextKey name: every
 * action goes to the database its key names, found in the environment, so one handler serves
 * every database of an app and a table moved between databases is created in the new one and
 * dropped from the old one. A handler serves one run (it remembers the tables declared in it).
 */
@ContainerTarget(
    provider = "cocoindex/sqlite/table",
    name = "Table",
    child = "Row",
    childValue = Row.class,
    api = "SqliteTables")
public final class TableHandler implements TargetHandler<TableSpec, TableRecord, TableAction> {
  private static final Logger log = LoggerFactory.getLogger(TableHandler.class);

  private final Function<String, SqliteDatabase> provided;
  private final TargetActionSink<TableAction> sink =
      TargetActionSink.withChildHandler(this::apply, new TableHandler_ChildHandlerFactory(this));
  /** The databases of this run by ContextKey name, each with its row and attachment sinks. */
  private final Map<String, Target> databases = new ConcurrentHashMap<>();
  /** What the run declared that is database-wide, by database file (one file, several keys). */
  private final Map<String, RowHandler.DatabaseWide> databaseWide = new ConcurrentHashMap<>();
  /**
   * The tables declared in this run, as {@link #where}: a table no longer declared under one key
   * but declared under another in the same database (its ContextKey renamed) is handed over,
   * not dropped under the new key's rows.
   */
  private final Set<String> declared = ConcurrentHashMap.newKeySet();
  /**
   * The tables of this run that were not there when their rows' handler was built (dropped by
   * hand since the last run), as {@link #where}: created again by their action whatever it
   * says, as a recreate is.
   */
  private final Set<String> foundMissing = ConcurrentHashMap.newKeySet();
  /**
   * The other apps' tables of this run that this app writes into as its user's, as {@link
   * #where}, to be recorded as its by their action ({@link TableGuests}), with the count of their
   * own app's changes that lost this app's rows, which the action takes back.
   */
  private final Map<String, Long> guestOf = new ConcurrentHashMap<>();
  /** The app's name. */
  private final String app;

  /**
   * A handler for one run, finding each table's database in {@code ctx}'s environment by the
   * ContextKey name in the table's key ({@code ContextKey.of(name, SqliteDatabase.class)}).
   *
   * @param ctx the context of the app's main component: its environment provides the databases,
   *     and its app's name is recorded in the schema objects the handler makes
   */
  public TableHandler(Ctx ctx) {
    this(name -> ctx.get(ContextKey.of(name, SqliteDatabase.class)), ctx.appName());
  }

  /**
   * @param provided the database of each ContextKey name
   * @param app the app's name, recorded in what is database-wide ({@link FullTextIndexHandler})
   */
  TableHandler(Function<String, SqliteDatabase> provided, String app) {
    this.provided = provided;
    this.app = app;
  }

  /** A database of the run with its sinks: one row sink and one attachment sink per database. */
  private record Target(SqliteDatabase db, RowHandler.Sinks sinks) {}

  /**
   * The database of ContextKey {@code name}.
   *
   * @throws IllegalStateException naming the table and the key when the environment does not
   *     provide it
   */
  private Target database(String name, String table) {
    Target t = databases.get(name);
    if (t != null) {
      return t;
    }
    SqliteDatabase db;
    try {
      db = provided.apply(name);
    } catch (IllegalStateException e) {
      throw new IllegalStateException("table " + table + " is in the database of ContextKey '"
          + name + "', which the environment does not provide: provide it (Environment.builder()"
          + ".provide(ContextKey.of(\"" + name + "\", SqliteDatabase.class), db)), the same"
          + " database if the key was renamed, until its tables are moved or dropped", e);
    }
    return databases.computeIfAbsent(name, n -> new Target(db, new RowHandler.Sinks(db,
        databaseWide.computeIfAbsent(db.location(), l -> new RowHandler.DatabaseWide(app)))));
  }

  /** Whether the environment provides the database of ContextKey {@code name}. */
  private boolean provides(String name) {
    if (databases.containsKey(name)) {
      return true;
    }
    try {
      provided.apply(name);
      return true;
    } catch (IllegalStateException e) {
      return false;
    }
  }

  /** Where a table is: its database's file and its name as SQLite compares it. */
  private static String where(Target t, String table) {
    return t.db().location() + "\u0000" + SqlIdentifiers.fold(table);
  }

  /**
   * The rows' handler of a table, built when the table's action resolves its children (before the
   * action is applied, and in a preview instead of it). A table this app manages that its action
   * does not create is looked for (one read of the schema): one dropped by hand since the last
   * run has lost its rows, which are then written again whole ({@link
   * RowHandler#childInvalidationFound}), memoized components' rows included, and the table is
   * created again with its indexes, SQL commands and full-text indexes.
   */
  @ChildHandler
  RowHandler rows(TableAction table) {
    TableSpec spec = table.spec();
    Target target = database(spec.database(), spec.name());
    boolean missing = !spec.userManaged() && !table.ensure() && !exists(target.db(), spec.name());
    if (missing) {
      log.warn("table {} of database {} is gone (dropped by hand?): it is created again and its"
          + " rows written again", spec.name(), target.db().location());
      foundMissing.add(where(target, spec.name()));
      return new RowHandler(spec, target.sinks(), TargetChildInvalidation.DESTRUCTIVE);
    }
    TableGuests.Look look = spec.userManaged() && !table.drop() ? look(target.db(), spec.name())
        : null;
    if (look == null || !look.guest(app)) {
      return new RowHandler(spec, target.sinks(), null);
    }
    if (!look.registered() || look.lost() > 0) {
      guestOf.put(where(target, spec.name()), look.lost());
    }
    if (!look.registered()) {
      // Its rows (if any: a first run has none) may have been written by a version that kept
      // no record of guests, and lost to a change of the owner's that nothing counted for it.
      log.debug("app '{}' is not yet recorded as a guest of table {} of database {} (app '{}'):"
          + " its rows there are written again once", app, spec.name(), target.db().location(),
          look.maker());
      return new RowHandler(spec, target.sinks(), TargetChildInvalidation.LOSSY);
    }
    if (look.lost() == 0) {
      return new RowHandler(spec, target.sinks(), null);
    }
    log.warn("table {} of database {} was changed by its app '{}' in a way that lost app '{}''s"
        + " rows (recreated): they are written again", spec.name(), target.db().location(),
        look.maker(), app);
    return new RowHandler(spec, target.sinks(), TargetChildInvalidation.LOSSY);
  }

  /** Looks at the user's table {@code name} for this app as a guest ({@link TableGuests}). */
  private TableGuests.Look look(SqliteDatabase db, String name) {
    if (!Files.exists(Path.of(db.location()))) {
      return null;
    }
    try {
      return db.read(c -> TableGuests.look(c, name, app));
    } catch (SQLException e) {
      throw new IllegalStateException("could not look at table " + name + " in database "
          + db.location() + ": " + e.getMessage(), e);
    }
  }

  /** The count a guest's action of the user's table {@code spec} takes back, or null. */
  private Long guestOf(TableSpec spec) {
    return guestOf.get(where(database(spec.database(), spec.name()), spec.name()));
  }

  /** Whether the table of {@code spec} was found missing in this run ({@link #rows}). */
  private boolean foundMissing(TableSpec spec) {
    return foundMissing.contains(where(database(spec.database(), spec.name()), spec.name()));
  }

  /**
   * Whether table {@code name} is in {@code db}: a database file that is gone holds no table
   * (and is not created by looking, which a preview must not do).
   */
  private static boolean exists(SqliteDatabase db, String name) {
    if (!Files.exists(Path.of(db.location()))) {
      return false;
    }
    try {
      SchemaObjects.SchemaObject holder = db.read(c -> SchemaObjects.lookUp(c, name));
      return holder != null && holder.isTable();
    } catch (SQLException e) {
      throw new IllegalStateException("could not look for table " + name + " in database "
          + db.location() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public TargetReconcileOutput<TableAction, TableRecord> reconcile(
      StableKey key, TableSpec desired, List<TableRecord> prev, boolean prevMayBeMissing) {
    if (desired == null) {
      if (prev.isEmpty()) {
        return null; // nothing known to exist
      }
      String database = key.part(0).asString();
      String name = key.part(1).asString();
      boolean usersTable = prev.stream().anyMatch(TableRecord::userManaged);
      if (usersTable && !provides(database)) {
        // Abandoned whole, as every user's table was before what the app made on it went with
        // it: a database no longer provided must not fail every run.
        log.warn("user-managed table {} is abandoned with what app '{}' made on it: the"
            + " environment no longer provides its database '{}'", name, app, database);
        return null;
      }
      if (declared.contains(where(database(database, name), name))) {
        // Declared under another key in the same database file (its ContextKey renamed): that
        // key owns the table now, rows and attachments included; dropping would take them.
        log.info("table {} of database {} is declared under another key: handed over, kept",
            name, database);
        return null;
      }
      // A user's table is abandoned, its rows with it; what this app made on it goes (the
      // sink finds it by the app it names: its attachments are not reconciled, DESIGN rule 8).
      TableSpec last = new TableSpec(database, name, List.of(), List.of(), usersTable);
      RowHandler.Sinks run = database(database, name).sinks();
      return TargetReconcileOutput.of(TargetAction.delete(new TableAction(last, false, false,
          List.of(), false, true, run.fullTextIndexes.all(),
          run.sqlCommands.all())), sink, null);
    }
    checkSpec(desired);
    declared.add(where(database(desired.database(), desired.name()), desired.name()));
    TableRecord record = record(desired);
    TableAction action;
    TargetChildInvalidation invalidation = null;
    if (desired.userManaged()) {
      action = new TableAction(
          desired, false, false, List.of(), false, false, List.of(), List.of());
    } else {
      CompositeDiff<String, String> diff = StateDiff.diffComposite(new TrackingRecordTransition<>(
          composite(record), prev.stream().map(TableHandler::composite).toList(),
          prevMayBeMissing));
      boolean recreate = diff.main() == DiffAction.REPLACE;
      Map<String, ColumnSpec> declaredColumns = new LinkedHashMap<>();
      desired.columns().forEach(c -> declaredColumns.put(SqlIdentifiers.fold(c.name()), c));
      List<ColumnSpec> add = new ArrayList<>();
      boolean rebuild = false;
      for (Map.Entry<String, TrackingRecordTransition<String>> e : diff.subs().entrySet()) {
        DiffAction column = StateDiff.diff(e.getValue());
        if (column == null || recreate) {
          continue;
        }
        String type = e.getValue().desired();
        if (column == DiffAction.INSERT && type != null) {
          add.add(new ColumnSpec(declaredColumns.get(e.getKey()).name(), type));
        } else if (column == DiffAction.DELETE || column == DiffAction.REPLACE) {
          rebuild = true;
        } else if (column == DiffAction.UPSERT && type != null) { // may be missing
          add.add(new ColumnSpec(declaredColumns.get(e.getKey()).name(), type));
        }
      }
      if (recreate) {
        invalidation = TargetChildInvalidation.DESTRUCTIVE;
      } else if (rebuild || !add.isEmpty()) {
        // An added column is NULL in every row until the row is written again: rows of memoized
        // components would not be, without the invalidation.
        invalidation = TargetChildInvalidation.LOSSY;
      }
      boolean ensure = prev.isEmpty() || prevMayBeMissing || recreate || rebuild || !add.isEmpty();
      action = new TableAction(
          desired, ensure, recreate, List.copyOf(add), rebuild, false, List.of(), List.of());
    }
    // A container returns an action on every run it is declared: its rows' handler comes from it.
    return new TargetReconcileOutput<>(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink, record,
        invalidation);
  }

  private static void checkSpec(TableSpec spec) {
    SqlIdentifiers.checkObject("table", spec.name());
    if (spec.columns().isEmpty()) {
      throw new IllegalArgumentException("table " + spec.name() + " has no columns");
    }
    Map<String, String> folded = new LinkedHashMap<>();
    for (ColumnSpec c : spec.columns()) {
      SqlIdentifiers.check("column", c.name());
      ColumnTypes.check(spec.name(), c);
      String other = folded.putIfAbsent(SqlIdentifiers.fold(c.name()), c.name());
      if (other != null) {
        throw new IllegalArgumentException("columns '" + other + "' and '" + c.name()
            + "' of table " + spec.name() + " would be one column: SQLite names are"
            + " case-insensitive");
      }
    }
    if (spec.primaryKey().isEmpty()) {
      throw new IllegalArgumentException("table " + spec.name() + " has no primary key");
    }
    for (String pk : spec.primaryKey()) {
      if (spec.columns().stream().noneMatch(c -> c.name().equals(pk))) {
        throw new IllegalArgumentException(
            "primary-key column '" + pk + "' is not a column of table " + spec.name());
      }
    }
  }

  static TableRecord record(TableSpec spec) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (ColumnSpec c : spec.columns()) {
      columns.put(c.name(), ColumnTypes.normalize(c.type()));
    }
    StringBuilder pk = new StringBuilder();
    for (String name : spec.primaryKey()) {
      pk.append(pk.length() == 0 ? "" : ",").append(name).append(' ').append(columns.get(name));
    }
    return new TableRecord(pk.toString(), columns, spec.userManaged());
  }

  /**
   * The record as compared, names case-folded as SQLite compares them: a column or primary key
   * renamed by case only is the same column (an ADD COLUMN of it fails as a duplicate).
   */
  private static CompositeTrackingRecord<String, String, String> composite(TableRecord r) {
    Map<String, String> columns = new LinkedHashMap<>();
    r.columns().forEach((name, type) -> columns.put(SqlIdentifiers.fold(name), type));
    return new CompositeTrackingRecord<>(SqlIdentifiers.fold(r.primaryKey()), columns);
  }

  private void apply(List<TargetAction<TableAction>> actions) throws SQLException {
    // One transaction per database, in the order the actions came.
    Map<String, List<TableAction>> byDatabase = new LinkedHashMap<>();
    for (TargetAction<TableAction> a : actions) {
      if (touchesTheDatabase(a.value()) || foundMissing(a.value().spec())
          || guestOf(a.value().spec()) != null) {
        byDatabase.computeIfAbsent(a.value().spec().database(), d -> new ArrayList<>())
            .add(a.value());
      }
    }
    // Tables refreshed as they are: no transaction (their rows' handler looked them up).
    for (Map.Entry<String, List<TableAction>> e : byDatabase.entrySet()) {
      SqliteDatabase db = database(e.getKey(), e.getValue().get(0).spec().name()).db();
      db.inTransaction(c -> {
        for (TableAction a : e.getValue()) {
          apply(db, c, a);
        }
        return null;
      });
    }
  }

  private void apply(SqliteDatabase db, Connection c, TableAction a) throws SQLException {
    TableSpec spec = a.spec();
    String table = SqlIdentifiers.quote("table", spec.name());
    if (a.drop() && spec.userManaged()) {
      removeWhatTheAppMade(db, c, a);
      return;
    }
    if (a.drop()) {
      String owner = madeBy(SchemaObjects.find(db, c, spec.name()));
      if (owner != null && !owner.equals(app)) {
        // Adopted by this app before tables named their app, and made anew by another since.
        log.warn("table {} is not dropped: app '{}' made it, and app '{}' no longer declares it",
            spec.name(), owner, app);
        return;
      }
      // Its children go with it: rows, indexes and triggers by SQLite; SQL commands (a view
      // would outlive it) and full-text indexes here.
      List<String> tornDown = SqlCommandRecords.tearDownAll(db, c, spec.name());
      List<String> dropped = FullTextIndexHandler.indexesOf(db, c, spec.name());
      for (String fts : dropped) {
        db.execute(c, "DROP TABLE IF EXISTS " + SqlIdentifiers.quote("full-text index", fts));
      }
      db.execute(c, "DROP TABLE IF EXISTS " + table);
      // An index of another table that this one had taken (in a run that failed before its end)
      // goes back there.
      for (FullTextIndexHandler.Declared index : a.fullTextIndexesElsewhere()) {
        if (dropped.stream().anyMatch(index.name()::equalsIgnoreCase)) {
          FullTextIndexHandler.handOver(db, c, index);
        }
      }
      // So may a command of another table whose setup did nothing over this one's object.
      for (String command : tornDown) {
        SqlCommandRecords.setUpAgain(db, c, command, a.sqlCommandsElsewhere().stream()
            .filter(d -> d.command().name().equals(command)).toList(), app);
      }
      return;
    }
    Long lost = a.drop() ? null : guestOf(spec);
    if (lost != null) {
      TableGuests.register(db, c, spec.name(), app, lost);
    }
    boolean missing = foundMissing(spec);
    if (!touchesTheDatabase(a) && !missing) {
      return;
    }
    SchemaObjects.SchemaObject holder = SchemaObjects.find(db, c, spec.name());
    if (holder != null && !holder.isTable()) {
      // CREATE TABLE IF NOT EXISTS would keep a view or a full-text index as the table.
      throw new IllegalStateException("table " + spec.name() + " cannot be created: "
          + holder.describe() + " has that name (SQLite names are case-insensitive, shared by"
          + " tables, views and indexes)");
    }
    String owner = madeBy(holder);
    if (owner != null && !owner.equals(app)) {
      throw new IllegalStateException("table " + spec.name() + " cannot be managed by app '"
          + app + "': app '" + owner + "' made it, and two apps cannot both create, change and"
          + " drop one table (SQLite names are the database's); give this app's table another"
          + " name, or declare it with TableSchema.userManaged to write rows into it");
    }
    // Other apps' commands and indexes on the table (their user's table) would go with the
    // table's rebuild or recreate while their apps' records, unchanged, say they are there: torn
    // down (read) first, set up (made) again at the end, as they were.
    boolean remakes = a.recreate() || a.rebuild();
    List<SqlCommandRecords.TornDown> othersCommands = remakes
        ? SqlCommandRecords.tearDownOthers(db, c, spec.name(), app) : List.of();
    List<IndexHandler.Made> othersIndexes = remakes
        ? IndexHandler.madeByOthers(db, c, spec.name(), app) : List.of();
    List<FullTextIndexHandler.Made> othersFullText = remakes
        ? FullTextIndexHandler.madeByOthers(db, c, spec.name(), app) : List.of();
    if (a.recreate() || missing) {
      // Dropped by hand, the table took its indexes and its full-text indexes' triggers with it,
      // and its children are new (DESTRUCTIVE): it is made again as a recreate makes it.
      // The commands are set up anew (their records reset): torn down first, while the table
      // they may name is there.
      List<String> tornDown = SqlCommandRecords.tearDownAll(db, c, spec.name());
      // So are its full-text indexes dropped: the table's children being new (DESTRUCTIVE), one
      // it still declares is created again, but no removal is sent for one it no longer declares,
      // whose FTS5 table would outlive its triggers for good.
      List<String> dropped = FullTextIndexHandler.indexesOf(db, c, spec.name());
      for (String fts : dropped) {
        db.execute(c, "DROP TABLE IF EXISTS " + SqlIdentifiers.quote("full-text index", fts));
      }
      db.execute(c, "DROP TABLE IF EXISTS " + table);
      // One of them may be another table's index, taken by this one in a run that failed before
      // its end, whose record still says it is there: it goes back to that table, created now if
      // the table declared it already in the run, or else by its declaration, which learns of
      // the drop. (A kill between this commit and that declaration's still loses it: its
      // unchanged record plans nothing, and only the engine could mark it possibly missing.)
      for (FullTextIndexHandler.Declared index : database(spec.database(), spec.name()).sinks()
          .fullTextIndexes.droppedByRecreate(spec.name(), dropped)) {
        FullTextIndexHandler.handOver(db, c, index);
      }
      // So may a command be another table's, set up there again as the index is, the other
      // table's record being unchanged (the same kill gap).
      for (SqlCommandHandler.Declared command : database(spec.database(), spec.name()).sinks()
          .sqlCommands.droppedByRecreate(spec.name(), tornDown)) {
        SqlCommandRecords.setUpOn(db, c, command, app);
      }
    }
    db.execute(c, createTable(table, spec, app));
    if (holder == null || a.recreate() || missing) {
      // Made (again): the rows other apps wrote into it, if any, went with the table.
      TableGuests.rowsLost(db, c, spec.name(), app);
    }
    Set<String> existing = TableColumns.folded(db, c, spec.name());
    for (ColumnSpec col : a.addColumns()) {
      if (!existing.contains(SqlIdentifiers.fold(col.name()))) {
        db.execute(c, "ALTER TABLE " + table + " ADD COLUMN "
            + SqlIdentifiers.quote("column", col.name()) + " " + ColumnTypes.normalize(col.type()));
      }
    }
    if (a.rebuild()) {
      rebuild(db, c, spec, table, app);
      // Other apps' values in a dropped column went with it (empty if it comes back), and a
      // retyped one's CAST may have changed them.
      TableGuests.rowsLost(db, c, spec.name(), app);
    }
    IndexHandler.makeAgain(db, c, spec.name(), othersIndexes);
    FullTextIndexHandler.makeAgain(db, c, spec.name(), othersFullText);
    SqlCommandRecords.setUpOthersAgain(db, c, spec.name(), othersCommands);
  }

  /**
   * Removes what this app made on the user's table {@code a} drops no longer declared: its SQL
   * commands, full-text indexes and indexes, found by the app they name (its record, its SQL),
   * since their tracking goes with the table's. The table, its rows, and what names another app
   * or none (the user's own index, an attachment made before apps were recorded) stay. What
   * another table declares under a name this frees is set up there again, as after a drop.
   */
  private void removeWhatTheAppMade(SqliteDatabase db, Connection c, TableAction a)
      throws SQLException {
    String name = a.spec().name();
    TableGuests.forget(db, c, name, app);
    List<String> tornDown = SqlCommandRecords.tearDownAllOf(db, c, name, app);
    List<String> dropped = FullTextIndexHandler.dropIndexesMadeBy(db, c, name, app);
    List<String> indexes = IndexHandler.dropIndexesMadeBy(db, c, name, app);
    for (FullTextIndexHandler.Declared index : a.fullTextIndexesElsewhere()) {
      if (dropped.stream().anyMatch(index.name()::equalsIgnoreCase)) {
        FullTextIndexHandler.handOver(db, c, index);
      }
    }
    for (String command : tornDown) {
      SqlCommandRecords.setUpAgain(db, c, command, a.sqlCommandsElsewhere().stream()
          .filter(d -> d.command().name().equals(command)).toList(), app);
    }
    log.info("user-managed table {} is no longer declared by app '{}': left as it is, with its"
        + " rows; the app's SQL commands {}, full-text indexes {} and indexes {} on it removed",
        name, app, tornDown, dropped, indexes);
  }

  /**
   * Whether applying {@code a} runs any statement: a user's table is never created or changed
   * (its drop removes only what the app made on it).
   */
  private static boolean touchesTheDatabase(TableAction a) {
    return a.drop() || (!a.spec().userManaged() && a.ensure());
  }

  /** The app named in a table's SQL ({@link MadeBy}), or null: none, or no table. */
  private static String madeBy(SchemaObjects.SchemaObject holder) {
    return holder == null || !holder.isTable() ? null : MadeBy.appIn(holder.sql());
  }

  /** Creates the table unless it exists, naming {@code app}, which made it ({@link MadeBy}). */
  private static String createTable(String table, TableSpec spec, String app) {
    StringBuilder sql = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(table)
        .append(' ').append(MadeBy.comment(app)).append(" (");
    for (ColumnSpec col : spec.columns()) {
      sql.append(SqlIdentifiers.quote("column", col.name())).append(' ')
          .append(ColumnTypes.normalize(col.type())).append(", ");
    }
    sql.append("PRIMARY KEY (");
    for (int i = 0; i < spec.primaryKey().size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(SqlIdentifiers.quote("column", spec.primaryKey().get(i)));
    }
    return sql.append("))").toString();
  }

  /**
   * The table a rebuild copies into: one name, whatever the table's (a name derived from it
   * would not fit in 64 characters for the longest), reserved so it is never a user's table.
   */
  static final String REBUILD_TABLE = SqlIdentifiers.RESERVED_PREFIX + "rebuild";

  /**
   * SQLite cannot change a column's type in place: copy into a new table, converting, as
   * SQLite's documented procedure for other table changes does (in one transaction: a failure
   * leaves the table as it was).
   */
  private static void rebuild(SqliteDatabase db, Connection c, TableSpec spec, String table,
      String app) throws SQLException {
    Set<String> existing = TableColumns.folded(db, c, spec.name());
    String tmp = SqlIdentifiers.quote("table", REBUILD_TABLE);
    db.execute(c, "DROP TABLE IF EXISTS " + tmp);
    db.execute(c, createTable(tmp, spec, app));
    StringBuilder cols = new StringBuilder();
    StringBuilder select = new StringBuilder();
    for (ColumnSpec col : spec.columns()) {
      if (!existing.contains(SqlIdentifiers.fold(col.name()))) {
        continue;
      }
      String q = SqlIdentifiers.quote("column", col.name());
      cols.append(cols.length() == 0 ? "" : ", ").append(q);
      select.append(select.length() == 0 ? "" : ", ")
          .append("CAST(").append(q).append(" AS ").append(ColumnTypes.normalize(col.type()))
          .append(')');
    }
    if (cols.length() > 0) {
      db.execute(c, "INSERT OR IGNORE INTO " + tmp + " (" + cols + ") SELECT " + select
          + " FROM " + table);
    }
    db.execute(c, "DROP TABLE " + table);
    // A view (or another table's trigger) naming the table fails a checked rename while the
    // table is gone ("error in view v: no such table"); the legacy rename leaves them as they
    // are, naming the table again once renamed, as SQLite's procedure prescribes.
    db.execute(c, "PRAGMA legacy_alter_table = ON");
    try {
      db.execute(c, "ALTER TABLE " + tmp + " RENAME TO " + table);
    } finally {
      db.execute(c, "PRAGMA legacy_alter_table = OFF");
    }
    log.info("rebuilt table {} for a dropped or retyped column; its rows are rewritten once",
        spec.name());
  }
}
