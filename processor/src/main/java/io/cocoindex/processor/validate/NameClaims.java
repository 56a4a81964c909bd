package io.cocoindex.processor.validate;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Names that must be unique in a compilation, claimed by the first element that uses them:
 * provider names, and the generated API classes.
 */
public final class NameClaims {
  private final Map<String, String> owners = new HashMap<>();

  /** Claims {@code name} for {@code owner}; returns the other owner when already claimed. */
  public Optional<String> claim(String name, String owner) {
    String previous = owners.putIfAbsent(name, owner);
    return previous == null || previous.equals(owner) ? Optional.empty() : Optional.of(previous);
  }
}
