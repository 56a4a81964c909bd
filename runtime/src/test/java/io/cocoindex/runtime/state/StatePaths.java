package io.cocoindex.runtime.state;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.plan.TargetPath;
import java.util.Arrays;

/** Encoded paths for the store's tests, made of string keys. */
final class StatePaths {
  private StatePaths() {}

  /** The encoded path of {@code keys}, each a string key. */
  static byte[] path(String... keys) {
    return TargetPath.of(Arrays.stream(keys).map(StableKey::of).toList()).encoded();
  }
}
