package io.cocoindex.samples.redis;

import io.cocoindex.annotation.ActionValue;
import java.util.List;

/**
 * Purge an index's prefix (replaced or removed), or nothing; documents are built from it.
 *
 * @param database the name of the database's {@code ContextKey}
 * @param prefix the key prefix
 * @param fields the declared fields (empty when removed)
 * @param purge delete every key under the prefix
 * @param system the index is system-managed: its app is recorded when it is created or replaced,
 *     and another app's is not taken (false in actions of an earlier version: nothing recorded)
 * @param declaredUnder for a removal: the other database keys under which the prefix is declared
 *     in the run; under one reaching this database, it is the same index, handed over rather than
 *     purged (empty otherwise)
 * @param tracked the index was tracked before this run (false in a removal, and in actions of an
 *     earlier version): its documents' handler then looks up its maker's record, whose absence
 *     says that its keys were lost behind the app's back (a FLUSHALL, a restart without
 *     persistence), so that they are written again
 */
@ActionValue
public record IndexAction(
    String database, String prefix, List<String> fields, boolean purge, boolean system,
    List<String> declaredUnder, boolean tracked) {
  /**
   * Copies the other keys, null (in actions of an earlier version) read as none.
   *
   * @param database the name of the database's {@code ContextKey}
   * @param prefix the key prefix
   * @param fields the declared fields (empty when removed)
   * @param purge delete every key under the prefix
   * @param system the index is system-managed
   * @param declaredUnder for a removal: the other database keys the prefix is declared under in
   *     the run; null for none
   * @param tracked the index was tracked before this run
   */
  public IndexAction {
    declaredUnder = declaredUnder == null ? List.of() : List.copyOf(declaredUnder);
  }

  /**
   * An action declared under no other key, of an index not tracked before: its maker is not
   * looked up.
   *
   * @param database the name of the database's {@code ContextKey}
   * @param prefix the key prefix
   * @param fields the declared fields (empty when removed)
   * @param purge delete every key under the prefix
   * @param system the index is system-managed
   */
  public IndexAction(
      String database, String prefix, List<String> fields, boolean purge, boolean system) {
    this(database, prefix, fields, purge, system, List.of(), false);
  }

  /**
   * A removal, or an action of an index not tracked before: its maker is not looked up.
   *
   * @param database the name of the database's {@code ContextKey}
   * @param prefix the key prefix
   * @param fields the declared fields (empty when removed)
   * @param purge delete every key under the prefix
   * @param system the index is system-managed
   * @param declaredUnder for a removal: the other database keys the prefix is declared under in
   *     the run, for none an empty list or null
   */
  public IndexAction(String database, String prefix, List<String> fields, boolean purge,
      boolean system, List<String> declaredUnder) {
    this(database, prefix, fields, purge, system, declaredUnder, false);
  }
}
