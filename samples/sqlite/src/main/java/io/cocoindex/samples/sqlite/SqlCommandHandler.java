package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.TargetValue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * User SQL with its teardown, per table. Because setup SQL need not be idempotent, a change (or
 * a possibly-missing state) runs every possibly-applied previous teardown before the new setup;
 * a removal runs the teardowns. The database records which commands are set up ({@link
 * SqlCommandRecords}): the sink also runs the recorded teardown when these records do not hold
 * it, and the table's drop runs them all. A removal runs only what the database records as set
 * up. Each record names the app that set the command up: one of the name another app set up on
 * the table (sharing it as a user's table) is an error when set up, and left alone when removed.
 *
 * <p>A command moved to another table under its name (or kept by a renamed table) is set up
 * there before the old table's is torn down at the end of the run. If its setup fails (its
 * object exists, made by the old table's command), the commands of that name recorded on tables
 * that do not declare it in the run are torn down first (handed over) and the setup runs again.
 * After the teardown of a command, by its removal or its table's drop, the commands of that name
 * other tables declare are set up again (teardown, then setup), in case their setup did nothing
 * over the object the teardown removed ({@code CREATE VIEW IF NOT EXISTS}). So does the recreate
 * of a table that had taken a command ({@link Run#droppedByRecreate}): a command whose name a
 * recreate tore down earlier in the run is set up again, even if its record is unchanged.
 */
final class SqlCommandHandler
    implements TargetHandler<SqlCommand, SqlCommand, AttachmentAction> {
  private final TableSpec table;
  private final TargetActionSink<AttachmentAction> sink;
  /** The commands of every table of the database in this run. */
  private final Run run;

  /**
   * A command declared in a run.
   *
   * @param table the table declaring it
   * @param command the command
   */
  @TargetValue
  public record Declared(String table, SqlCommand command) {}

  /**
   * The SQL commands of one database in one run, by name case-folded: those its tables declare
   * (several tables may declare one name), and those a table's recreate tore down. Both are read
   * and written under one lock, so that a command declared on one table and torn down by another's
   * recreate is set up again by exactly one of them, whichever comes first ({@link #declare},
   * {@link #droppedByRecreate}).
   */
  static final class Run {
    private final Map<String, List<Declared>> declared = new LinkedHashMap<>();
    private final Set<String> droppedByRecreate = new HashSet<>();

    /**
     * Declares {@code command} in the run.
     *
     * @return whether a table's recreate tore its name down earlier in the run: its object may
     *     be gone, whatever its table's record says, and it must be set up again
     */
    synchronized boolean declare(Declared command) {
      String name = SqlIdentifiers.fold(command.command().name());
      declared.computeIfAbsent(name, n -> new ArrayList<>()).add(command);
      return droppedByRecreate.contains(name);
    }

    /** The commands named {@code name} that tables other than {@code table} declare, so far. */
    synchronized List<Declared> elsewhere(String name, String table) {
      return declared.getOrDefault(SqlIdentifiers.fold(name), List.of()).stream()
          .filter(d -> !d.table().equalsIgnoreCase(table)).toList();
    }

    /** Every command declared in the run so far. */
    synchronized List<Declared> all() {
      List<Declared> all = new ArrayList<>();
      declared.values().forEach(all::addAll);
      return all;
    }

    /**
     * Records that the recreate of {@code table} tore down the commands {@code names}.
     *
     * @return those of them that other tables declared earlier in the run: the recreate sets them
     *     up there again (a later declaration sees the teardown in {@link #declare})
     */
    synchronized List<Declared> droppedByRecreate(String table, List<String> names) {
      List<Declared> elsewhere = new ArrayList<>();
      for (String n : names) {
        droppedByRecreate.add(SqlIdentifiers.fold(n));
        elsewhere.addAll(elsewhere(n, table));
      }
      return elsewhere;
    }
  }

  SqlCommandHandler(TableSpec table, TargetActionSink<AttachmentAction> sink, Run run) {
    this.table = table;
    this.sink = sink;
    this.run = run;
  }

  /** The commands named {@code name} that other tables declare in this run, so far. */
  private List<Declared> elsewhere(String name) {
    return run.elsewhere(name, table.name());
  }

  @Override
  public TargetReconcileOutput<AttachmentAction, SqlCommand> reconcile(
      StableKey key, SqlCommand desired, List<SqlCommand> prev, boolean prevMayBeMissing) {
    List<String> teardowns = new ArrayList<>();
    for (SqlCommand p : prev) {
      if (!teardowns.contains(p.teardown())) {
        teardowns.add(p.teardown());
      }
    }
    if (desired == null) {
      if (prev.isEmpty()) {
        return null;
      }
      String name = key.asString();
      return TargetReconcileOutput.of(TargetAction.delete(AttachmentAction.of(
          table.name(), teardowns, List.of()).withSqlCommand(name, null, elsewhere(name))), sink,
          null);
    }
    SqlIdentifiers.check("SQL command", desired.name());
    String of = " of SQL command " + desired.name() + " of table " + table.name();
    SqlStatements.checkOne("the setup" + of, desired.setup());
    SqlStatements.checkOne("the teardown" + of, desired.teardown());
    boolean tornDown = run.declare(new Declared(table.name(), desired));
    if (!tornDown && !prevMayBeMissing && !prev.isEmpty()
        && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    AttachmentAction action = AttachmentAction.of(table.name(), teardowns,
        List.of(desired.setup())).withSqlCommand(
            desired.name(), desired.teardown(), elsewhere(desired.name()));
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink, desired);
  }
}
