package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.ActionValue;
import java.util.List;

/**
 * Run the teardowns of the previous versions of a command, then its new setup, and keep the
 * record of the table's commands ({@link TableComment}, {@link UserTableCommands}) up to date.
 *
 * @param schema the table's schema
 * @param table the table the command is declared on
 * @param recorded whether the table is system-managed, so its comment records its commands
 *     (else its schema's {@link UserTableCommands} do)
 * @param name the command's name
 * @param teardowns the previous teardown SQL, run first, in order
 * @param setup the new setup SQL, or null when the command is removed
 * @param teardown the new version's teardown SQL (recorded beside the table), or null
 */
@ActionValue
public record SqlCommandAction(
    String schema,
    String table,
    boolean recorded,
    String name,
    List<String> teardowns,
    String setup,
    String teardown) {}
