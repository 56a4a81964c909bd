package io.cocoindex.runtime.state;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * An encoded path (or any byte string) as a hash key, hashed once and fast: the engine and the
 * store look paths up in hash maps for every state of every run. {@code ByteBuffer.wrap} as a key
 * hashed byte by byte on every lookup, a sixth of the state writer's time on a cold run; {@code
 * Arrays.hashCode} collided heavily on encoded integer keys, whose bytes differ only at the end.
 * The bytes are not copied and must not change.
 */
public final class ByteKey {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final byte[] bytes;
  private final int hash;

  private ByteKey(byte[] bytes, int hash) {
    this.bytes = bytes;
    this.hash = hash;
  }

  /**
   * A key over {@code bytes}, which it keeps without copying: they must not change after.
   *
   * @param bytes the byte string, hashed now
   * @return the key
   */
  public static ByteKey of(byte[] bytes) {
    return new ByteKey(bytes, hashOf(bytes));
  }

  /**
   * A key whose hash is already known: {@code hash} must be {@link #hashOf}{@code (bytes)}.
   *
   * @param bytes the byte string, kept without copying
   * @param hash its {@link #hashOf}, not checked
   * @return the key
   */
  public static ByteKey of(byte[] bytes, int hash) {
    return new ByteKey(bytes, hash);
  }

  /**
   * The bytes, not copied.
   *
   * @return the array the key was made over, not to be changed
   */
  public byte[] bytes() {
    return bytes;
  }

  /**
   * Eight bytes at a time, each word multiplied in, then a full avalanche (MurmurHash3's
   * finalizer). In memory only: never stored.
   *
   * @param bytes the byte string
   * @return its hash, as {@link #hashCode} of a key over it returns
   */
  public static int hashOf(byte[] bytes) {
    int n = bytes.length;
    long h = 0x9E3779B97F4A7C15L ^ n;
    int i = 0;
    for (; i + 8 <= n; i += 8) {
      h = (h ^ (long) LONGS.get(bytes, i)) * 0xFF51AFD7ED558CCDL;
      h ^= h >>> 29;
    }
    if (i < n) {
      long tail = 0;
      for (int shift = 0; i < n; i++, shift += 8) {
        tail |= (bytes[i] & 0xFFL) << shift;
      }
      h = (h ^ tail) * 0xFF51AFD7ED558CCDL;
    }
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return (int) h;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ByteKey k && hash == k.hash && Arrays.equals(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
