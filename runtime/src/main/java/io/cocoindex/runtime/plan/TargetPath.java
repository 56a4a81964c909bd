package io.cocoindex.runtime.plan;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.codec.KeyEncoding;
import io.cocoindex.runtime.state.ByteKey;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A path of keys: a target state's place under its provider ({@code /@provider/"docs"/"r1"}), or a
 * processing component's place under the app's root component. Equal by encoded bytes.
 */
public final class TargetPath implements Comparable<TargetPath> {
  private static final StableKey[] NO_KEYS = new StableKey[0];
  public static final TargetPath ROOT = new TargetPath(NO_KEYS, new byte[0]);

  /**
   * The keys, never changed once the path is made: an array, so that a child copies it in one
   * step (through an unmodifiable list, {@link #child} copied it element by element).
   */
  private final StableKey[] keys;
  private final byte[] encoded;
  private final int hash;
  /**
   * {@code keys.length}, kept: a component sorts its declarations by depth, and reading the
   * length from the array is one more dependent load, a cache miss (the sort went from 2% to 9%
   * of a warm run's component samples without this field).
   */
  private final int depth;

  private TargetPath(StableKey[] keys, byte[] encoded) {
    this.keys = keys;
    this.encoded = encoded;
    this.hash = ByteKey.hashOf(encoded); // so that a path and its key() hash alike
    this.depth = keys.length;
  }

  public static TargetPath of(List<StableKey> keys) {
    List<StableKey> copy = List.copyOf(keys); // rejects nulls
    return new TargetPath(copy.toArray(NO_KEYS), KeyEncoding.encodePath(copy));
  }

  public static TargetPath decode(byte[] encoded) {
    return new TargetPath(KeyEncoding.decodePath(encoded).toArray(NO_KEYS), encoded.clone());
  }

  public TargetPath child(StableKey key) {
    Objects.requireNonNull(key, "key");
    StableKey[] next = Arrays.copyOf(keys, keys.length + 1);
    next[keys.length] = key;
    return new TargetPath(next, KeyEncoding.append(encoded, key));
  }

  /** The path without its last key; the provider path of a target state. */
  public TargetPath parent() {
    if (keys.length == 0) {
      throw new IllegalStateException("the root path has no parent");
    }
    return of(keys().subList(0, keys.length - 1));
  }

  public StableKey last() {
    return keys[keys.length - 1];
  }

  /** The keys, as an unmodifiable list. */
  public List<StableKey> keys() {
    return Collections.unmodifiableList(Arrays.asList(keys));
  }

  /** How many keys the path has (a component sorts its declarations by depth). */
  public int depth() {
    return depth;
  }

  /** Whether this path equals {@code ancestor} or lies below it. */
  public boolean startsWith(TargetPath ancestor) {
    int n = ancestor.keys.length;
    if (ancestor.encoded.length > encoded.length || n > keys.length) {
      return false;
    }
    return Arrays.equals(keys, 0, n, ancestor.keys, 0, n);
  }

  public byte[] encoded() {
    return encoded.clone();
  }

  /** The encoded bytes without a copy: callers in this package never modify them. */
  byte[] encodedUnsafe() {
    return encoded;
  }

  /**
   * The encoded path as a hash key, reusing this path's hash: stored rows are matched by these
   * bytes, never decoded.
   */
  public ByteKey key() {
    return ByteKey.of(encoded, hash);
  }

  @Override
  public int compareTo(TargetPath o) {
    return Arrays.compareUnsigned(encoded, o.encoded);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TargetPath p && hash == p.hash && Arrays.equals(encoded, p.encoded);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** Rendered like {@code /@provider/"docs"/"r1"}; the root is {@code /}. */
  @Override
  public String toString() {
    if (keys.length == 0) {
      return "/";
    }
    StringBuilder sb = new StringBuilder();
    for (StableKey k : keys) {
      sb.append('/').append(k);
    }
    return sb.toString();
  }
}
