package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.ActionValue;
import java.util.List;

/**
 * Run the teardowns of the previous versions of a command, then its new setup.
 *
 * @param name the command's name
 * @param teardowns the previous teardown SQL, run first, in order
 * @param setup the new setup SQL, or null when the command is removed
 */
@ActionValue
public record SqlCommandAction(String name, List<String> teardowns, String setup) {}
