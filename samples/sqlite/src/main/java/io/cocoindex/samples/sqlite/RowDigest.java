package io.cocoindex.samples.sqlite;

import io.cocoindex.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/**
 * A row's fingerprint, its tracking record: the first 16 bytes of the SHA-256 of the values'
 * compact encoding, XORed with the fingerprint of the table's columns (so that rows of a table
 * whose columns changed are written again, a user's table included).
 *
 * <p>The encoding: the number of values as a varint, then each value as a tag byte and its
 * payload: {@code 0} NULL; {@code 1} INTEGER, a zigzag varint; {@code 2} REAL, the eight bytes of
 * {@link Double#doubleToLongBits}, big-endian; {@code 3} TEXT, the varint length and bytes of its
 * UTF-8 form ({@link String#getBytes}); {@code 4} BLOB, its varint length and bytes. Every value
 * is self-delimiting, so two lists of values never encode alike.
 *
 * <p>Why not {@link Fingerprint#of}'s encoding: its eight-byte lengths and numbers, and the
 * columns' fingerprint written into every row, made a bench row 166 bytes (three SHA-256 blocks)
 * where this makes it 108 (two). SHA-256 is the largest single cost of a warm rerun, and it is
 * paid per 64-byte block.
 */
final class RowDigest {
  private static final int TAG_NULL = 0;
  private static final int TAG_INTEGER = 1;
  private static final int TAG_REAL = 2;
  private static final int TAG_TEXT = 3;
  private static final int TAG_BLOB = 4;

  /** One per thread: a digest and a buffer reused for every row. */
  private static final ThreadLocal<RowDigest> CACHED = ThreadLocal.withInitial(RowDigest::new);

  private final MessageDigest sha;
  private final byte[] hash = new byte[32];
  private byte[] buf = new byte[256];
  private int size;

  private RowDigest() {
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  /**
   * The fingerprint of a row of {@code values} in a table whose columns fingerprint as {@code
   * columns} (16 bytes, as {@link Fingerprint#bytes()} gives them).
   */
  static Fingerprint of(byte[] columns, List<SqlValue> values) {
    RowDigest d = CACHED.get();
    d.size = 0;
    d.writeVarLong(values.size());
    for (int i = 0, n = values.size(); i < n; i++) {
      d.write(values.get(i));
    }
    return d.digest(columns);
  }

  private void write(SqlValue v) {
    switch (v.kind()) {
      case INTEGER -> {
        ensure(11);
        buf[size++] = TAG_INTEGER;
        long x = v.integer();
        writeVarLong((x << 1) ^ (x >> 63));
      }
      case REAL -> {
        ensure(9);
        buf[size++] = TAG_REAL;
        long bits = Double.doubleToLongBits(v.real());
        for (int shift = 56; shift >= 0; shift -= 8) {
          buf[size++] = (byte) (bits >>> shift);
        }
      }
      // A TEXT or BLOB made without its value is bound as NULL, and fingerprints as one.
      case TEXT -> {
        if (v.text() == null) {
          writeNull();
        } else {
          writeBytes(TAG_TEXT, v.text().getBytes(StandardCharsets.UTF_8));
        }
      }
      case BLOB -> {
        if (v.blob() == null) {
          writeNull();
        } else {
          writeBytes(TAG_BLOB, v.blob());
        }
      }
      default -> writeNull();
    }
  }

  private void writeNull() {
    ensure(1);
    buf[size++] = TAG_NULL;
  }

  private void writeBytes(int tag, byte[] b) {
    ensure(11 + b.length);
    buf[size++] = (byte) tag;
    writeVarLong(b.length);
    System.arraycopy(b, 0, buf, size, b.length);
    size += b.length;
  }

  /** Seven bits a byte, low first, the high bit set on every byte but the last. */
  private void writeVarLong(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[size++] = (byte) v;
  }

  private void ensure(int n) {
    if (size + n > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(2 * buf.length, size + n));
    }
  }

  private Fingerprint digest(byte[] columns) {
    sha.update(buf, 0, size);
    try {
      sha.digest(hash, 0, hash.length);
    } catch (DigestException e) {
      throw new IllegalStateException("SHA-256 gives 32 bytes", e);
    }
    byte[] out = new byte[Fingerprint.LENGTH];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) (hash[i] ^ columns[i]);
    }
    if (buf.length > 1 << 16) {
      buf = new byte[256]; // not kept for the thread's life after one huge row
    }
    return new Fingerprint(out);
  }
}
