package io.cocoindex.runtime.codec.generated;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.codec.CodecFormatException;
import io.cocoindex.codec.Utf8;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.codec.ValueWriter;
import java.util.Arrays;
import java.util.UUID;

/**
 * An in-memory {@link ValueWriter} whose content reads back through {@link #reader()}: how a
 * generated codec copies a value that crosses the serialization boundary inside one process (a
 * declared value on its way to {@code reconcile}, an action on its way to its sink).
 *
 * <p>It records the tree the Smile writer would encode, token by token, but keeps immutable
 * leaves (strings, UUIDs, fingerprints, stable keys) by reference and numbers unboxed: a copy
 * costs no text encoding and no field-name lookups. Byte arrays, the one mutable leaf, are
 * copied as they are written. One tape per thread is reused; {@link #release} clears its
 * references so that it holds on to nothing between copies.
 */
final class ValueTape implements ValueWriter {
  private static final byte BEGIN_OBJECT = 1;
  private static final byte END_OBJECT = 2;
  private static final byte BEGIN_ARRAY = 3;
  private static final byte END_ARRAY = 4;
  private static final byte FIELD = 5;
  private static final byte NULL = 6;
  private static final byte TRUE = 7;
  private static final byte FALSE = 8;
  private static final byte INT = 9;
  private static final byte LONG = 10;
  private static final byte FLOAT = 11;
  private static final byte DOUBLE = 12;
  /** A reference leaf: a String, byte[], UUID, Fingerprint or StableKey. */
  private static final byte REF = 13;

  private static final ThreadLocal<ValueTape> CACHED = ThreadLocal.withInitial(ValueTape::new);
  /** Beyond this many tokens a released tape drops its arrays rather than keep them. */
  private static final int MAX_KEPT_TOKENS = 1 << 14;

  private byte[] kinds = new byte[64];
  private long[] numbers = new long[64];
  private Object[] refs = new Object[64];
  private int size;
  private boolean inUse;

  /** This thread's tape, or a fresh one while that is in use (a copy inside a copy). */
  static ValueTape acquire() {
    ValueTape t = CACHED.get();
    if (t.inUse) {
      t = new ValueTape();
    }
    t.inUse = true;
    return t;
  }

  /** Forgets the content; the tape may be acquired again. */
  void release() {
    if (kinds.length > MAX_KEPT_TOKENS) {
      // do not pin one huge value's arrays to the thread
      kinds = new byte[64];
      numbers = new long[64];
      refs = new Object[64];
    } else {
      Arrays.fill(refs, 0, size, null);
    }
    size = 0;
    inUse = false;
  }

  /** Reads the recorded tree from its start. */
  ValueReader reader() {
    return new Reader();
  }

  private void add(byte kind) {
    if (size == kinds.length) {
      int n = size * 2;
      kinds = Arrays.copyOf(kinds, n);
      numbers = Arrays.copyOf(numbers, n);
      refs = Arrays.copyOf(refs, n);
    }
    kinds[size++] = kind;
  }

  private void addNumber(byte kind, long bits) {
    add(kind);
    numbers[size - 1] = bits;
  }

  private void addRef(Object value) {
    if (value == null) {
      add(NULL);
    } else {
      add(REF);
      refs[size - 1] = value;
    }
  }

  // ---- writing ----

  @Override
  public void beginObject() {
    add(BEGIN_OBJECT);
  }

  @Override
  public void field(String name) {
    add(FIELD);
    refs[size - 1] = name;
  }

  @Override
  public void endObject() {
    add(END_OBJECT);
  }

  @Override
  public void beginArray() {
    add(BEGIN_ARRAY);
  }

  @Override
  public void endArray() {
    add(END_ARRAY);
  }

  @Override
  public void writeNull() {
    add(NULL);
  }

  @Override
  public void writeBoolean(boolean value) {
    add(value ? TRUE : FALSE);
  }

  @Override
  public void writeInt(int value) {
    addNumber(INT, value);
  }

  @Override
  public void writeLong(long value) {
    addNumber(LONG, value);
  }

  @Override
  public void writeFloat(float value) {
    addNumber(FLOAT, Float.floatToRawIntBits(value));
  }

  @Override
  public void writeDouble(double value) {
    addNumber(DOUBLE, Double.doubleToRawLongBits(value));
  }

  /** Rejects what the Smile writer rejects, so that a copy fails where encoding would. */
  @Override
  public void writeString(String value) {
    if (value != null && !Utf8.isWellFormed(value)) {
      throw new IllegalArgumentException(SmileValueWriter.UNPAIRED_SURROGATE);
    }
    addRef(value);
  }

  @Override
  public void writeBytes(byte[] value) {
    addRef(value == null ? null : value.clone());
  }

  @Override
  public void writeUuid(UUID value) {
    addRef(value);
  }

  @Override
  public void writeFingerprint(Fingerprint value) {
    addRef(value);
  }

  @Override
  public void writeStableKey(StableKey value) {
    addRef(value);
  }

  // ---- reading ----

  /**
   * Reads the tape back. Shapes are checked as the Smile reader checks them, so a codec that
   * reads something other than what it wrote fails with a {@link CodecFormatException} (and the
   * copy falls back to encoding).
   */
  private final class Reader implements ValueReader {
    private int pos;

    boolean atEnd() {
      return pos == size;
    }

    private byte peek() {
      if (pos >= size) {
        throw new CodecFormatException("the copied value ended early");
      }
      return kinds[pos];
    }

    private void expect(byte kind, String what) {
      if (peek() != kind) {
        throw mismatch(what);
      }
      pos++;
    }

    private CodecFormatException mismatch(String expected) {
      return new CodecFormatException(
          "expected " + expected + " at token " + pos + " of a copied value");
    }

    @Override
    public boolean readNull() {
      if (pos < size && kinds[pos] == NULL) {
        pos++;
        return true;
      }
      return false;
    }

    @Override
    public void beginObject() {
      expect(BEGIN_OBJECT, "an object");
    }

    @Override
    public String nextField() {
      byte k = peek();
      if (k == END_OBJECT) {
        pos++;
        return null;
      }
      if (k != FIELD) {
        throw mismatch("a field name");
      }
      return (String) refs[pos++];
    }

    @Override
    public void beginArray() {
      expect(BEGIN_ARRAY, "an array");
    }

    @Override
    public boolean nextElement() {
      if (peek() == END_ARRAY) {
        pos++;
        return false;
      }
      return true;
    }

    @Override
    public void skipValue() {
      int depth = 0;
      do {
        byte k = peek();
        pos++;
        if (k == BEGIN_OBJECT || k == BEGIN_ARRAY) {
          depth++;
        } else if (k == END_OBJECT || k == END_ARRAY) {
          depth--;
        }
      } while (depth > 0);
    }

    @Override
    public boolean readBoolean() {
      byte k = peek();
      pos++;
      if (k == TRUE || k == FALSE || k == NULL) {
        return k == TRUE;
      }
      pos--;
      throw mismatch("a boolean");
    }

    /** Consumes a number, or a null (which reads as zero), and gives its kind. */
    private byte number() {
      byte k = peek();
      if (k != INT && k != LONG && k != FLOAT && k != DOUBLE && k != NULL) {
        throw mismatch("a number");
      }
      pos++;
      return k;
    }

    private long integral() {
      byte k = number();
      long bits = numbers[pos - 1];
      return k == NULL ? 0
          : k == FLOAT ? (long) Float.intBitsToFloat((int) bits)
          : k == DOUBLE ? (long) Double.longBitsToDouble(bits)
          : bits;
    }

    private double floating() {
      byte k = number();
      long bits = numbers[pos - 1];
      return k == NULL ? 0
          : k == FLOAT ? Float.intBitsToFloat((int) bits)
          : k == DOUBLE ? Double.longBitsToDouble(bits)
          : bits;
    }

    @Override
    public int readInt() {
      return (int) integral();
    }

    @Override
    public long readLong() {
      return integral();
    }

    @Override
    public float readFloat() {
      return (float) floating();
    }

    @Override
    public double readDouble() {
      return floating();
    }

    private <T> T ref(Class<T> type, String what) {
      byte k = peek();
      if (k == NULL) {
        pos++;
        return null;
      }
      if (k != REF || !type.isInstance(refs[pos])) {
        throw mismatch(what);
      }
      return type.cast(refs[pos++]);
    }

    @Override
    public String readString() {
      return ref(String.class, "a string");
    }

    @Override
    public byte[] readBytes() {
      return ref(byte[].class, "binary data");
    }

    @Override
    public UUID readUuid() {
      return ref(UUID.class, "a UUID");
    }

    @Override
    public Fingerprint readFingerprint() {
      return ref(Fingerprint.class, "a fingerprint");
    }

    @Override
    public StableKey readStableKey() {
      return ref(StableKey.class, "a stable key");
    }
  }

  /** Whether {@code reader}, made by {@link #reader()}, read every token. */
  static boolean atEnd(ValueReader reader) {
    return ((Reader) reader).atEnd();
  }
}
