package io.cocoindex.samples.sqlite;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.annotation.TargetValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * User SQL with its teardown, per table. Because setup SQL need not be idempotent, a change (or
 * a possibly-missing state) runs every possibly-applied previous teardown before the new setup;
 * a removal runs the teardowns. The database records which commands are set up ({@link
 * SqlCommandRecords}): the sink also runs the recorded teardown when these records do not hold
 * it, and the table's drop runs them all. A removal runs only what the database records as set
 * up.
 *
 * <p>A command moved to another table under its name (or kept by a renamed table) is set up
 * there before the old table's is torn down at the end of the run. If its setup fails (its
 * object exists, made by the old table's command), the commands of that name recorded on tables
 * that do not declare it in the run are torn down first (handed over) and the setup runs again.
 * After the teardown of a command, by its removal or its table's drop, the commands of that name
 * other tables declare are set up again (teardown, then setup), in case their setup did nothing
 * over the object the teardown removed ({@code CREATE VIEW IF NOT EXISTS}).
 */
final class SqlCommandHandler
    implements TargetHandler<SqlCommand, SqlCommand, AttachmentAction> {
  private final TableSpec table;
  private final TargetActionSink<AttachmentAction> sink;
  /** The commands of every table of the database declared in this run, by name case-folded. */
  private final Map<String, Queue<Declared>> run;

  /**
   * A command declared in a run.
   *
   * @param table the table declaring it
   * @param command the command
   */
  @TargetValue
  public record Declared(String table, SqlCommand command) {}

  SqlCommandHandler(TableSpec table, TargetActionSink<AttachmentAction> sink,
      Map<String, Queue<Declared>> run) {
    this.table = table;
    this.sink = sink;
    this.run = run;
  }

  /** The commands named {@code name} that other tables declare in this run, so far. */
  private List<Declared> elsewhere(String name) {
    Queue<Declared> all = run.get(SqlIdentifiers.fold(name));
    return all == null ? List.of()
        : all.stream().filter(d -> !d.table().equalsIgnoreCase(table.name())).toList();
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
      String name = ((StableKey.Str) key).value();
      return TargetReconcileOutput.of(TargetAction.delete(AttachmentAction.of(
          table.name(), teardowns, List.of()).withSqlCommand(name, null, elsewhere(name))), sink,
          null);
    }
    SqlIdentifiers.check("SQL command", desired.name());
    run.computeIfAbsent(SqlIdentifiers.fold(desired.name()), n -> new ConcurrentLinkedQueue<>())
        .add(new Declared(table.name(), desired));
    if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
      return null;
    }
    AttachmentAction action = AttachmentAction.of(table.name(), teardowns,
        List.of(desired.setup())).withSqlCommand(
            desired.name(), desired.teardown(), elsewhere(desired.name()));
    return TargetReconcileOutput.of(
        prev.isEmpty() ? TargetAction.create(action) : TargetAction.update(action), sink, desired);
  }
}
