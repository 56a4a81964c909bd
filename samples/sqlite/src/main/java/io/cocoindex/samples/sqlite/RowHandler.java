package io.cocoindex.samples.sqlite;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.Attachment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The rows of one table, tracked by the fingerprint of their values: an unchanged row sends
 * nothing. Its attachments are the table's indexes, SQL commands and full-text indexes.
 */
final class RowHandler implements TargetHandler<Row, Fingerprint, RowAction> {
  private final TableSpec table;
  private final Sinks sinks;
  private final List<String> columns;
  /** The columns' fingerprint's bytes, which every row's fingerprint is XORed with. */
  private final byte[] columnsFingerprint;
  private final IndexHandler indexes;
  private final SqlCommandHandler sqlCommands;
  private final FullTextIndexHandler fullTextIndexes;
  /** The table was not there when this handler was built: see {@link #childInvalidationFound}. */
  private final TargetChildInvalidation found;

  /**
   * What one run declared that is database-wide, for one database file: shared by every key that
   * provides that file, since SQLite's names are the file's whichever key a table is under.
   */
  static final class DatabaseWide {
    /**
     * The full-text indexes of this run: their names are the database's, whichever table
     * declares them ({@link FullTextIndexHandler}).
     */
    final FullTextIndexHandler.Run fullTextIndexes;
    /** The SQL commands declared in this run by name case-folded ({@link SqlCommandHandler}). */
    final SqlCommandHandler.Run sqlCommands = new SqlCommandHandler.Run();

    /** The app's name, recorded in what it makes ({@link MadeBy}). */
    final String app;

    /** What app {@code app} declares in one database in a run. */
    DatabaseWide(String app) {
      this.app = app;
      this.fullTextIndexes = new FullTextIndexHandler.Run(app);
    }
  }

  /**
   * The sinks of one database in one run: every table's rows and attachments share them, with
   * what the run declared that is database-wide.
   */
  static final class Sinks {
    final TargetActionSink<RowAction> rows;
    final TargetActionSink<AttachmentAction> attachments;
    final FullTextIndexHandler.Run fullTextIndexes;
    final SqlCommandHandler.Run sqlCommands;
    /** The app's name ({@link DatabaseWide#app}). */
    final String app;

    Sinks(SqliteDatabase db, DatabaseWide declared) {
      this.app = declared.app;
      this.rows = TargetActionSink.of(new RowWriter(db)::apply);
      this.attachments = TargetActionSink.of(new AttachmentWriter(db, declared.app)::apply);
      this.fullTextIndexes = declared.fullTextIndexes;
      this.sqlCommands = declared.sqlCommands;
    }
  }

  RowHandler(TableSpec table, Sinks sinks) {
    this(table, sinks, null);
  }

  /**
   * @param found DESTRUCTIVE: the table was looked for and not found (dropped by hand since the
   *     last run, its rows with it); LOSSY: its own app changed it in a way that lost this app's
   *     rows ({@link TableGuests}); null: nothing
   */
  RowHandler(TableSpec table, Sinks sinks, TargetChildInvalidation found) {
    this.table = table;
    this.sinks = sinks;
    this.found = found;
    List<String> names = new ArrayList<>();
    table.columns().forEach(c -> names.add(c.name()));
    this.columns = List.copyOf(names);
    this.columnsFingerprint = Fingerprint.of(columns).bytes();
    this.indexes = new IndexHandler(table, sinks.attachments, sinks.app);
    this.sqlCommands = new SqlCommandHandler(table, sinks.attachments, sinks.sqlCommands);
    this.fullTextIndexes =
        new FullTextIndexHandler(table, sinks.attachments, sinks.fullTextIndexes);
  }

  @Attachment("index")
  IndexHandler index() {
    return indexes;
  }

  @Attachment("sql_command")
  SqlCommandHandler sqlCommand() {
    return sqlCommands;
  }

  @Attachment("full_text_index")
  FullTextIndexHandler fullTextIndex() {
    return fullTextIndexes;
  }

  @Override
  public Map<String, ChildTargetDef<?>> attachments() {
    return RowHandler_Attachments.of(this);
  }

  /**
   * A table found missing lost every row: the engine reconciles each declared row as new (so it
   * is written), sends no deletion for the others, and lets no memo of a component that declared
   * rows into it hold. Another app's table whose changes lost this app's rows: each is
   * reconciled once as possibly missing, so written again.
   */
  @Override
  public TargetChildInvalidation childInvalidationFound() {
    return found;
  }

  @Override
  public TargetReconcileOutput<RowAction, Fingerprint> reconcile(
      StableKey key, Row desired, List<Fingerprint> prev, boolean prevMayBeMissing) {
    if (desired == null) {
      if (prev.isEmpty() && !prevMayBeMissing) {
        return null;
      }
      return TargetReconcileOutput.of(TargetAction.delete(new RowAction(
          table.name(), columns, table.primaryKey(), keyValues(key), true)), sinks.rows, null);
    }
    if (desired.values().size() != columns.size()) {
      throw new IllegalArgumentException(
          "row " + key + " of table " + table.name() + " has " + desired.values().size()
              + " values for " + columns.size() + " columns " + columns);
    }
    for (String pk : table.primaryKey()) {
      if (desired.values().get(columns.indexOf(pk)).isNull()) {
        throw new IllegalArgumentException(
            "row " + key + " of table " + table.name() + " has a null primary-key column '" + pk
                + "'");
      }
    }
    Fingerprint record = fingerprint(desired.values());
    if (!prevMayBeMissing && !prev.isEmpty() && allEqual(prev, record)) {
      return null;
    }
    RowAction upsert =
        new RowAction(table.name(), columns, table.primaryKey(), desired.values(), false);
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(upsert) : TargetAction.update(upsert), sinks.rows,
        record);
  }

  /** The row's content: see {@link RowDigest}. */
  private Fingerprint fingerprint(List<SqlValue> values) {
    return RowDigest.of(columnsFingerprint, values);
  }

  private static boolean allEqual(List<Fingerprint> prev, Fingerprint record) {
    for (Fingerprint p : prev) {
      if (!record.equals(p)) {
        return false;
      }
    }
    return true;
  }

  private static List<SqlValue> keyValues(StableKey key) {
    List<StableKey> parts = key instanceof StableKey.Array a ? a.items() : List.of(key);
    List<SqlValue> out = new ArrayList<>(parts.size());
    for (StableKey k : parts) {
      if (k instanceof StableKey.Int i) {
        out.add(SqlValue.of(i.value()));
      } else if (k instanceof StableKey.Str s) {
        out.add(SqlValue.of(s.value()));
      } else if (k instanceof StableKey.Bytes b) {
        out.add(SqlValue.of(b.value()));
      } else {
        out.add(SqlValue.NULL);
      }
    }
    return out;
  }
}
