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
  /** The path of no keys: the app's root component, above every provider. */
  public static final TargetPath ROOT = new TargetPath(NO_KEYS, new byte[0]);

  private final byte[] encoded;
  /**
   * How many keys the path has, kept: a component sorts its declarations by depth, and reading
   * it through the keys is one more dependent load, a cache miss (the sort went from 2% to 9% of
   * a warm run's component samples without this field).
   */
  private final int depth;
  /**
   * The path this one extends by {@link #last}, for a path made by {@link #child}; else null.
   * A child's keys are made from them when asked for (rarely: the orphan sweep, messages): a
   * row's path is compared and stored by its bytes, and copying the keys into every child was
   * about a seventh of what its path allocated.
   */
  private final TargetPath parent;
  private final StableKey last;
  /**
   * The keys, never changed; null for a child, whose keys are its parent's and {@link #last},
   * and for a path read from its encoding ({@link #decode}), whose keys are decoded when asked
   * for.
   */
  private final StableKey[] keys;
  /** A child's or a decoded path's keys once asked for ({@link #keyArray}); null until then. */
  private volatile StableKey[] madeKeys;
  /**
   * For a decoded path, where each of its keys ends once its parent was asked for (null until
   * then), shared with that parent (whose keys end at the same places): walking up a decoded
   * path scans its bytes once, not once a step.
   */
  private volatile int[] keyEnds;
  /**
   * {@link ByteKey#hashOf} the encoded bytes, made on first use (0 until then, or when it is 0):
   * a warm rerun hashes none of its rows' paths.
   */
  private int hash;

  private TargetPath(StableKey[] keys, byte[] encoded) {
    this.keys = keys;
    this.encoded = encoded;
    this.depth = keys.length;
    this.parent = null;
    this.last = null;
  }

  /** A path read from {@code encoded} (checked, {@code depth} keys), its keys not made yet. */
  private TargetPath(byte[] encoded, int depth) {
    this.keys = null;
    this.encoded = encoded;
    this.depth = depth;
    this.parent = null;
    this.last = null;
  }

  private TargetPath(TargetPath parent, StableKey last, byte[] encoded) {
    this.encoded = encoded;
    this.depth = parent.depth + 1;
    this.parent = parent;
    this.last = last;
    this.keys = null;
  }

  /**
   * The path of {@code keys}.
   *
   * @param keys the keys from the root down, copied; none null
   * @return the path, its encoding made now
   * @throws NullPointerException if a key is null
   * @throws IllegalArgumentException if a string in a key holds an unpaired surrogate
   */
  public static TargetPath of(List<StableKey> keys) {
    List<StableKey> copy = List.copyOf(keys); // rejects nulls
    return new TargetPath(copy.toArray(NO_KEYS), KeyEncoding.encodePath(copy));
  }

  /**
   * The path {@code encoded}, checked now (a {@link io.cocoindex.runtime.codec.CodecException}
   * if it is not one), its keys made only when asked for: the orphan sweep reads every stored
   * component's path and compares it by its bytes, and making the keys of a component thousands
   * deep (one for each ancestor) made a chain of components quadratic in its depth.
   *
   * @param encoded an encoded path, copied
   * @return the path it encodes
   * @throws io.cocoindex.runtime.codec.CodecException if {@code encoded} is not an encoded path
   */
  public static TargetPath decode(byte[] encoded) {
    byte[] copy = encoded.clone();
    return new TargetPath(copy, KeyEncoding.keyCount(copy));
  }

  /**
   * This path extended by {@code key}.
   *
   * @param key the child's key
   * @return the child's path
   * @throws NullPointerException if {@code key} is null
   */
  public TargetPath child(StableKey key) {
    Objects.requireNonNull(key, "key");
    return new TargetPath(this, key, KeyEncoding.append(encoded, key));
  }

  /**
   * The path without its last key; the provider path of a target state.
   *
   * @return the parent path
   * @throws IllegalStateException if this is the root path
   */
  public TargetPath parent() {
    if (depth == 0) {
      throw new IllegalStateException("the root path has no parent");
    }
    if (parent != null) {
      return parent;
    }
    if (keys == null) { // decoded: its parent is a prefix of its bytes
      int[] ends = keyEnds;
      if (ends == null) {
        ends = KeyEncoding.keyEnds(encoded);
        keyEnds = ends;
      }
      TargetPath up =
          new TargetPath(Arrays.copyOf(encoded, depth > 1 ? ends[depth - 2] : 0), depth - 1);
      up.keyEnds = ends;
      return up;
    }
    return of(keys().subList(0, depth - 1));
  }

  /**
   * The path's last key: a target state's key under its provider, or a component's under its
   * parent. Not for the root, which has none.
   *
   * @return the last key
   */
  public StableKey last() {
    if (last != null) {
      return last;
    }
    if (keys == null && parent == null && madeKeys == null && depth > 0) {
      // Decoded, its keys not made: the last alone (where it starts is known once the parent
      // was asked for).
      int[] ends = keyEnds;
      return KeyEncoding.decodeLast(encoded, ends == null ? -1 : depth > 1 ? ends[depth - 2] : 0);
    }
    return keyArray()[depth - 1];
  }

  /**
   * The keys, as an unmodifiable list.
   *
   * @return the keys from the root down; empty for the root
   */
  public List<StableKey> keys() {
    return Collections.unmodifiableList(Arrays.asList(keyArray()));
  }

  /**
   * The keys in an array (not to be changed): this path's own, or for a child, one made from its
   * parent's once and kept (made anew on every call, each ancestor's in turn, a deep path's
   * keys cost the square of its depth), or for a decoded path, decoded once and kept.
   */
  private StableKey[] keyArray() {
    if (keys != null) {
      return keys;
    }
    StableKey[] k = madeKeys;
    if (k == null) {
      if (parent == null) {
        k = KeyEncoding.decodePath(encoded).toArray(NO_KEYS);
      } else {
        StableKey[] up = parent.keyArray();
        k = Arrays.copyOf(up, up.length + 1);
        k[up.length] = last;
      }
      madeKeys = k;
    }
    return k;
  }

  /**
   * How many keys the path has (a component sorts its declarations by depth).
   *
   * @return the number of keys; 0 for the root
   */
  public int depth() {
    return depth;
  }

  /**
   * Whether this path equals {@code ancestor} or lies below it.
   *
   * @param ancestor a path
   * @return true if this path's keys begin with all of {@code ancestor}'s
   */
  public boolean startsWith(TargetPath ancestor) {
    // Keys encode self-delimited: a path's encoding begins with an ancestor's, and only theirs.
    int n = ancestor.encoded.length;
    return n <= encoded.length && Arrays.equals(encoded, 0, n, ancestor.encoded, 0, n);
  }

  /**
   * The path's encoding ({@link KeyEncoding#encodePath}), as it is stored.
   *
   * @return a copy of the encoded bytes
   */
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
   *
   * @return the encoded bytes (not copied, never modified) with this path's hash
   */
  public ByteKey key() {
    return ByteKey.of(encoded, hashCode());
  }

  @Override
  public int compareTo(TargetPath o) {
    return Arrays.compareUnsigned(encoded, o.encoded);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TargetPath p && hashCode() == p.hashCode()
        && Arrays.equals(encoded, p.encoded);
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      h = ByteKey.hashOf(encoded); // so that a path and its key() hash alike
      hash = h;
    }
    return h;
  }

  /** Rendered like {@code /@provider/"docs"/"r1"}; the root is {@code /}. */
  @Override
  public String toString() {
    return KeyEncoding.render(Arrays.asList(keyArray()));
  }
}
