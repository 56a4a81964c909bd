package io.cocoindex.samples.postgres;

import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.TargetActionSink;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * One database of the connector: its connection and one sink per kind of action. Every table,
 * row, index or command of the database goes through these sink instances, so the engine hands
 * each a whole batch, which it applies in one transaction.
 */
final class Database {
  final String name;
  final DataSource dataSource;
  final TargetActionSink<TableAction> tables;
  final TargetActionSink<RowAction> rows;
  final TargetActionSink<IndexAction> indexes;
  final TargetActionSink<SqlCommandAction> commands;

  /**
   * A database of the connector.
   *
   * @param others the data source of another database key of the handler, by its name
   * @param app the app's name, recorded beside the tables, indexes and SQL commands it makes;
   *     null records none
   * @param foundMissing the tables of the run found missing when their rows' handler was built
   * @param guestOf for another app's table this app writes into, the count its action takes
   *     back ({@link TableGuests}); null for any other
   */
  Database(String name, DataSource dataSource, ChildHandlerFactory<TableAction> rowHandlers,
      Function<String, DataSource> others, String app, Predicate<TableAction> foundMissing,
      Function<TableAction, Long> guestOf) {
    this.name = name;
    this.dataSource = dataSource;
    this.tables = TargetActionSink.withChildHandler(
        new TableSink(dataSource, others, app, foundMissing, guestOf)::apply, rowHandlers);
    this.rows = TargetActionSink.of(new RowSink(dataSource)::apply);
    this.indexes = TargetActionSink.of(new IndexSink(dataSource, app)::apply);
    this.commands = TargetActionSink.of(new SqlCommandSink(dataSource, app)::apply);
  }
}
