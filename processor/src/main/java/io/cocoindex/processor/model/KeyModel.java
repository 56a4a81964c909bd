package io.cocoindex.processor.model;

import java.util.List;

/**
 * How a declare method finds a target state's key.
 *
 * @param accessors the {@code @Key} component accessors of the value, in order; empty when the
 *     value has none and the method takes the key as a parameter
 */
public record KeyModel(List<String> accessors) {
  public KeyModel {
    accessors = List.copyOf(accessors);
  }

  /** The declare method takes an explicit key. */
  public static KeyModel explicit() {
    return new KeyModel(List.of());
  }

  public boolean isExplicit() {
    return accessors.isEmpty();
  }
}
