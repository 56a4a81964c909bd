package io.cocoindex.samples.postgres;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.ContainerTarget;
import io.cocoindex.statediff.CompositeDiff;
import io.cocoindex.statediff.CompositeTrackingRecord;
import io.cocoindex.statediff.DiffAction;
import io.cocoindex.statediff.ManagedBy;
import io.cocoindex.statediff.StateDiff;
import io.cocoindex.statediff.TrackingRecordTransition;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL tables (containers) of rows (children), with index and SQL-command attachments.
 *
 * <pre>{@code
 * Tables tables = Tables.register(ctx, TableHandler.of(ctx, DB));
 * TableTarget docs = tables.mountTable(ctx, schema.table(DB, "public", "docs"));
 * docs.declareRow(ctx, schema.row(doc));
 * docs.declareIndex(ctx, new IndexSpec("by_title", List.of("title"), false, "btree"));
 * }</pre>
 *
 * <p>A system-managed table no longer declared is dropped with its rows (the destroy shape); a
 * user-managed one is left with its rows (the abandon shape), and the indexes and SQL commands
 * this app made on it are removed, found by the app their records name ({@link TableComment},
 * {@link UserTableCommands}). Schema changes: a changed primary key
 * recreates the table (children DESTRUCTIVE); an added column is added in place; a dropped
 * column or a changed type is applied in place and makes the rows LOSSY, so they are rewritten.
 * A table that may be missing (dropped in a run that failed after the drop) is created if need
 * be, and its rows and attachments are LOSSY too, so they are written again.
 *
 * <p>A handler serves one run: it remembers the tables declared in it, so that a table no longer
 * declared under one database key but declared under another reaching the same database (one
 * database under two keys, or a key renamed with the old one still passed) is handed over to it
 * instead of dropped. {@link #of} in {@code main} makes one per run.
 */
@ContainerTarget(
    provider = "cocoindex.io/postgres/table",
    name = "Table",
    child = "Row",
    childValue = Row.class)
public final class TableHandler implements TargetHandler<TableSpec, TableRecord, TableAction> {
  private static final Logger LOG = LoggerFactory.getLogger(TableHandler.class);
  private final Map<String, Database> databases = new LinkedHashMap<>();
  /**
   * The tables declared in this run, as (database key, schema, table): a table no longer
   * declared under one key but declared under another that reaches the same database (one
   * database under two keys, or a key renamed) is the same table, handed over, not dropped.
   */
  private final Set<List<String>> declared = ConcurrentHashMap.newKeySet();
  /**
   * The tables of this run, as (database key, schema, table), that were not there when their
   * rows' handler was built (dropped by hand since the last run): the table sink creates them
   * whatever their action says.
   */
  private final Set<List<String>> foundMissing = ConcurrentHashMap.newKeySet();
  /**
   * The other apps' tables of this run that this app writes into as its user's, as (database
   * key, schema, table), to be recorded as its by their action ({@link TableGuests}), with the
   * count of their own app's changes that lost this app's rows, which the action takes back.
   */
  private final Map<List<String>, Long> guestOf = new ConcurrentHashMap<>();
  /** The app's name ({@link Ctx#appName()}), or null: see {@link #TableHandler(Map, String)}. */
  private final String app;

  /**
   * A handler for these databases, by the names of their {@code ContextKey}s, that records no
   * app beside its tables (prefer {@link #of}, which records the run's).
   *
   * @param dataSources the data source of each database name
   */
  public TableHandler(Map<String, DataSource> dataSources) {
    this(dataSources, null);
  }

  /**
   * A handler for these databases, by the names of their {@code ContextKey}s.
   *
   * @param dataSources the data source of each database name
   * @param app the app's name, recorded beside each table it makes so that another app never
   *     takes the table over ({@link Ctx#appName()}); null records none and checks none
   */
  public TableHandler(Map<String, DataSource> dataSources, String app) {
    this.app = app;
    TableHandler_ChildHandlerFactory rowHandlers = new TableHandler_ChildHandlerFactory(this);
    dataSources.forEach(
        (name, ds) ->
            databases.put(name, new Database(name, Objects.requireNonNull(ds, name), rowHandlers,
                other -> database(other).dataSource, app,
                t -> foundMissing.contains(List.of(t.database(), t.schema(), t.table())),
                t -> guestOf.get(List.of(t.database(), t.schema(), t.table())))));
  }

  /**
   * A handler for the databases of these keys, resolved from the context of this run.
   *
   * @param ctx the context of the app's main component, whose environment provides the data
   *     sources and which names the app
   * @param keys the keys the data sources are provided under; each key's name identifies its
   *     database in the tables' keys
   * @return a handler for those databases, recording the app's name beside each table it makes
   * @throws IllegalStateException naming the key when the environment provides no data source
   *     under one of {@code keys}
   */
  @SafeVarargs
  public static TableHandler of(Ctx ctx, ContextKey<DataSource>... keys) {
    Map<String, DataSource> sources = new LinkedHashMap<>();
    for (ContextKey<DataSource> key : keys) {
      sources.put(key.name(), ctx.get(key));
    }
    return new TableHandler(sources, ctx.appName());
  }

  /**
   * The rows' handler of a table, built when the table's action resolves its children (before the
   * action is applied, and in a preview instead of it). A system-managed table whose action
   * changes nothing is looked up (one query): one dropped by hand since the last run has lost its
   * rows, indexes and commands, which are then written again whole ({@link
   * RowHandler#childInvalidationFound}), memoized components' rows included, and the table sink
   * creates it again.
   */
  @ChildHandler
  RowHandler rows(TableAction table) {
    Database db = database(table.database());
    boolean missing = table.managedBy() == ManagedBy.SYSTEM && table.changes().isEmpty()
        && !exists(db, table);
    if (missing) {
      LOG.warn("table {} of database {} is gone (dropped by hand?): it is created again and its"
          + " rows written again", table.qualifiedName(), table.database());
      foundMissing.add(List.of(table.database(), table.schema(), table.table()));
      return new RowHandler(db, table, TargetChildInvalidation.DESTRUCTIVE);
    }
    TableGuests.Look look = table.managedBy() == ManagedBy.USER && app != null
        ? look(db, table) : null;
    if (look == null || !look.guest(app)) {
      return new RowHandler(db, table, null);
    }
    if (!look.registered() || look.lost() > 0) {
      guestOf.put(List.of(table.database(), table.schema(), table.table()), look.lost());
    }
    if (look.lost() == 0) {
      return new RowHandler(db, table, null);
    }
    LOG.warn("table {} of database {} was changed by its app '{}' in a way that lost app '{}''s"
        + " rows (recreated): they are written again", table.qualifiedName(), table.database(),
        look.maker(), app);
    return new RowHandler(db, table, TargetChildInvalidation.LOSSY);
  }

  private TableGuests.Look look(Database db, TableAction table) {
    try (Connection conn = db.dataSource.getConnection()) {
      return TableGuests.look(conn, table.schema(), table.table(), app);
    } catch (SQLException e) {
      throw new IllegalStateException("could not look at table " + table.qualifiedName()
          + " in database " + table.database() + ": " + e.getMessage(), e);
    }
  }

  private static boolean exists(Database db, TableAction table) {
    try (Connection conn = db.dataSource.getConnection()) {
      return Relations.isTable(conn, table.schema(), table.table());
    } catch (SQLException e) {
      throw new IllegalStateException("could not look for table " + table.qualifiedName()
          + " in database " + table.database() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public TargetReconcileOutput<TableAction, TableRecord> reconcile(
      StableKey key, TableSpec desired, List<TableRecord> prev, boolean prevMayBeMissing) {
    if (desired == null) {
      return dropped(key, prev);
    }
    Database db = database(desired.database(), desired.schema() + "." + desired.table(), true);
    declared.add(List.of(desired.database(), desired.schema(), desired.table()));
    TableRecord record = TableRecord.of(desired);
    List<SchemaChange> changes = new ArrayList<>();
    TargetChildInvalidation invalidation = null;
    if (desired.managedBy() == ManagedBy.SYSTEM) {
      List<CompositeTrackingRecord<List<ColumnDef>, String, String>> systemPrev = new ArrayList<>();
      boolean userOwnedBefore = false;
      for (TableRecord p : prev) {
        if (p.managedBy() == ManagedBy.USER) {
          userOwnedBefore = true; // taking over a user's table: make sure of every column
        } else {
          systemPrev.add(p.composite());
        }
      }
      CompositeDiff<String, String> diff =
          StateDiff.diffComposite(
              new TrackingRecordTransition<>(
                  record.composite(), systemPrev, prevMayBeMissing || userOwnedBefore));
      invalidation = plan(diff, desired, changes);
    }
    if (app != null && prev.stream().anyMatch(p -> p.managedBy() != desired.managedBy())) {
      // Its commands' records follow the table to where its new kind keeps them: left where
      // they were, the old place's were torn down a second time (a drop) or never (a release).
      changes.add(SchemaChange.table(SchemaChange.Kind.MOVE_COMMAND_RECORDS));
    }
    TableAction action =
        new TableAction(
            desired.database(), desired.schema(), desired.table(), desired.columns(),
            desired.primaryKey(), changes, desired.managedBy());
    // A container returns an action on every run it is declared: the rows' handler is built
    // from it. With no changes the sink does not even open a connection.
    return new TargetReconcileOutput<>(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action),
        db.tables,
        record,
        invalidation);
  }

  /** Turns the composite diff into DDL steps; returns the children's invalidation. */
  private static TargetChildInvalidation plan(
      CompositeDiff<String, String> diff, TableSpec desired, List<SchemaChange> changes) {
    DiffAction main = diff.main();
    if (main == DiffAction.REPLACE) {
      changes.add(SchemaChange.table(SchemaChange.Kind.RECREATE_TABLE));
      return TargetChildInvalidation.DESTRUCTIVE;
    }
    if (main == DiffAction.INSERT || main == DiffAction.UPSERT) {
      // The table may exist already (an interrupted run): every column is made sure of too.
      changes.add(SchemaChange.table(SchemaChange.Kind.CREATE_TABLE));
    }
    boolean lossy = false;
    for (Map.Entry<String, TrackingRecordTransition<String>> e : diff.subs().entrySet()) {
      DiffAction column = StateDiff.diff(e.getValue());
      if (column == null) {
        continue;
      }
      ColumnDef def = desired.column(e.getKey());
      switch (column) {
        case INSERT -> changes.add(SchemaChange.column(SchemaChange.Kind.ADD_COLUMN, def));
        case UPSERT -> {
          changes.add(SchemaChange.column(SchemaChange.Kind.ADD_COLUMN, def));
          lossy = true;
        }
        case REPLACE -> {
          changes.add(SchemaChange.column(SchemaChange.Kind.ALTER_COLUMN_TYPE, def));
          lossy = true;
        }
        case DELETE -> {
          changes.add(SchemaChange.dropColumn(e.getKey()));
          lossy = true;
        }
        default -> throw new IllegalStateException("unexpected column action " + column);
      }
    }
    if (main == DiffAction.UPSERT) {
      // The table may be missing (a drop whose run failed after it ran, or a user's table taken
      // over): its rows, indexes and commands may have gone with it, though their records hold.
      return TargetChildInvalidation.LOSSY;
    }
    // Only an added column leaves existing rows intact; anything else may have lost values.
    return main == null && lossy ? TargetChildInvalidation.LOSSY : null;
  }

  private TargetReconcileOutput<TableAction, TableRecord> dropped(
      StableKey key, List<TableRecord> prev) {
    if (prev.isEmpty()) {
      return null; // nothing known to exist
    }
    String databaseName = key.part(0).asString();
    TableRecord p = prev.get(0);
    // Orphans are reconciled at the end of the run, after every declaration.
    List<String> declaredUnder = databases.keySet().stream()
        .filter(other -> !other.equals(databaseName)
            && declared.contains(List.of(other, p.schema(), p.table())))
        .toList();
    if (prev.stream().anyMatch(r -> r.managedBy() == ManagedBy.USER)) {
      if (app == null || !databases.containsKey(databaseName)) {
        // Nothing this handler made names an app to be found by; or the database is no longer
        // passed: abandoned untouched, as before, rather than failing every run.
        return null;
      }
      // The user's table is abandoned with its rows; what this app made on it goes, found by
      // the app its records name (its attachments are not reconciled, DESIGN rule 8).
      TableAction release = new TableAction(databaseName, p.schema(), p.table(), List.of(),
          List.of(), List.of(SchemaChange.table(SchemaChange.Kind.RELEASE_TABLE)),
          ManagedBy.USER, declaredUnder);
      return new TargetReconcileOutput<>(
          TargetAction.delete(release), database(databaseName).tables, null, null);
    }
    TableAction drop =
        new TableAction(
            databaseName, p.schema(), p.table(), List.of(), List.of(),
            List.of(SchemaChange.table(SchemaChange.Kind.DROP_TABLE)), ManagedBy.SYSTEM,
            declaredUnder);
    return new TargetReconcileOutput<>(
        TargetAction.delete(drop),
        database(databaseName, p.schema() + "." + p.table(), false).tables, null,
        TargetChildInvalidation.DESTRUCTIVE);
  }

  private Database database(String name) {
    return database(name, null, false);
  }

  /**
   * The database of this key name, or an error naming the table and what to do: pass the key,
   * and, for a table tracked under a key renamed since, the old key beside the new one.
   */
  private Database database(String name, String table, boolean declared) {
    Database db = databases.get(name);
    if (db != null) {
      return db;
    }
    String known = " (known: " + databases.keySet() + ")";
    if (table == null) {
      throw new IllegalStateException("no DataSource for database '" + name + "'" + known
          + ": pass its ContextKey to TableHandler.of(ctx, ...)");
    }
    if (declared) {
      throw new IllegalStateException("no DataSource for database '" + name + "'" + known
          + ": table " + table + " is declared in it; pass its ContextKey to TableHandler.of(ctx,"
          + " ...), and provide it to the Environment");
    }
    throw new IllegalStateException("no DataSource for database '" + name + "'" + known
        + ": the app tracks table " + table + " under it, and no longer declares it there. If that"
        + " ContextKey was renamed, pass the old key beside the new one for a run"
        + " (TableHandler.of(ctx, OLD, NEW), both provided to the Environment): the table is"
        + " handed over to the new key if declared there, and dropped otherwise. Until then it"
        + " and its rows are left as they are");
  }
}
