package io.cocoindex.samples.postgres;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;

/**
 * SQL run beside a table (a trigger, a view, a grant): {@code setup} when declared or changed,
 * {@code teardown} before a changed setup, when no longer declared, and before its table is
 * dropped or recreated (a system-managed table records its commands in its comment for that).
 * Both are the application's own SQL, run as written: never build them from untrusted input.
 * Make them idempotent ({@code CREATE OR REPLACE}, {@code DROP ... IF EXISTS}): after an
 * interrupted run they may run again, and a setup runs again after the teardown of a command of
 * the same name on another table (a command moved between tables keeps its object).
 *
 * @param name the command's name, the attachment's key
 * @param setup the SQL that sets it up
 * @param teardown the SQL that undoes the setup, or null for none
 */
@TargetValue
public record SqlCommand(@Key String name, String setup, String teardown) {
  /**
   * Checks that the command has a name and setup SQL.
   *
   * @param name the command's name, the attachment's key
   * @param setup the SQL that sets it up
   * @param teardown the SQL that undoes the setup, or null for none
   * @throws IllegalArgumentException when {@code name} or {@code setup} is null or blank
   */
  public SqlCommand {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("an SQL command needs a name");
    }
    if (setup == null || setup.isBlank()) {
      throw new IllegalArgumentException("SQL command " + name + " has no setup SQL");
    }
  }
}
