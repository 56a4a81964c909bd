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
  public static final TargetPath ROOT = new TargetPath(List.of(), new byte[0]);

  private final List<StableKey> keys;
  private final byte[] encoded;
  private final int hash;
  /**
   * {@code keys.size()}, kept: a component sorts its declarations by depth, and the size behind
   * the unmodifiable list was three dependent loads, a cache miss each (8% of a cold run's
   * component work).
   */
  private final int depth;

  private TargetPath(List<StableKey> keys, byte[] encoded) {
    this.keys = keys;
    this.encoded = encoded;
    this.hash = ByteKey.hashOf(encoded); // so that a path and its key() hash alike
    this.depth = keys.size();
  }

  public static TargetPath of(List<StableKey> keys) {
    List<StableKey> copy = List.copyOf(keys);
    return new TargetPath(copy, KeyEncoding.encodePath(copy));
  }

  public static TargetPath decode(byte[] encoded) {
    return new TargetPath(List.copyOf(KeyEncoding.decodePath(encoded)), encoded.clone());
  }

  public TargetPath child(StableKey key) {
    Objects.requireNonNull(key, "key");
    StableKey[] next = keys.toArray(new StableKey[depth + 1]);
    next[depth] = key;
    byte[] k = KeyEncoding.encode(key);
    byte[] enc = Arrays.copyOf(encoded, encoded.length + k.length);
    System.arraycopy(k, 0, enc, encoded.length, k.length);
    return new TargetPath(Collections.unmodifiableList(Arrays.asList(next)), enc);
  }

  /** The path without its last key; the provider path of a target state. */
  public TargetPath parent() {
    if (keys.isEmpty()) {
      throw new IllegalStateException("the root path has no parent");
    }
    return of(keys.subList(0, keys.size() - 1));
  }

  public StableKey last() {
    return keys.get(keys.size() - 1);
  }

  public List<StableKey> keys() {
    return keys;
  }

  public int depth() {
    return depth;
  }

  /** Whether this path equals {@code ancestor} or lies below it. */
  public boolean startsWith(TargetPath ancestor) {
    if (ancestor.encoded.length > encoded.length || ancestor.keys.size() > keys.size()) {
      return false;
    }
    return keys.subList(0, ancestor.keys.size()).equals(ancestor.keys);
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
    if (keys.isEmpty()) {
      return "/";
    }
    StringBuilder sb = new StringBuilder();
    for (StableKey k : keys) {
      sb.append('/').append(k);
    }
    return sb.toString();
  }
}
