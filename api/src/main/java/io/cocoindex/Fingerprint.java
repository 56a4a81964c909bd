package io.cocoindex;

import io.cocoindex.codec.Utf8;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * A 16-byte digest of a value's canonical, type-tagged encoding: deterministic across JVMs and
 * runs, equal for equal values, different for values of different types even when their bytes
 * agree ({@code ofString("ab") != ofBytes("ab".getBytes())}).
 *
 * <p>Use it as a compact tracking record ("the content changed") or as a memo input key.
 *
 * @param bytes the 16 digest bytes
 */
public record Fingerprint(byte[] bytes) implements Comparable<Fingerprint> {

  /** Number of bytes in a fingerprint. */
  public static final int LENGTH = 16;

  /**
   * Takes a copy of the digest bytes, so that the fingerprint cannot change afterwards.
   *
   * @param bytes the 16 digest bytes
   * @throws IllegalArgumentException when {@code bytes} is null or not 16 bytes long
   */
  public Fingerprint {
    if (bytes == null || bytes.length != LENGTH) {
      throw new IllegalArgumentException("a fingerprint has exactly 16 bytes, not "
          + (bytes == null ? "null" : bytes.length));
    }
    bytes = bytes.clone();
  }

  /**
   * A copy of the 16 digest bytes.
   *
   * @return a new array of the {@value #LENGTH} bytes; changing it changes no fingerprint
   */
  @Override
  public byte[] bytes() {
    return bytes.clone();
  }

  /**
   * Fingerprints a value: records (by component name and value), enums, strings, numbers,
   * booleans, characters, {@code byte[]}, UUIDs, lists and arrays (in order), sets and maps
   * (sorted by the encoding of their elements/keys, so iteration order does not matter), {@code
   * Optional}, {@code Fingerprint}, {@link StableKey} and {@code null}.
   *
   * @param value the value to fingerprint, of a supported type (its nested values too)
   * @return the fingerprint of the value's canonical encoding
   * @throws IllegalArgumentException naming the type of an unsupported (nested) value
   */
  public static Fingerprint of(Object value) {
    Encoder enc = ENCODERS.get();
    if (enc.busy) { // a toString() or accessor fingerprinting from inside a fingerprint
      enc = new Encoder();
    }
    enc.busy = true;
    try {
      enc.out.size = 0;
      enc.write(value);
      return enc.out.digest();
    } finally {
      enc.busy = false;
      enc.out.shrink();
    }
  }

  /** Eight-byte lengths and numbers, as the canonical encoding writes them (big-endian). */
  private static final java.lang.invoke.VarHandle BIG_ENDIAN_LONGS =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
          long[].class, java.nio.ByteOrder.BIG_ENDIAN);

  /** One encoder per thread: fingerprints are taken for every declared row. */
  private static final ThreadLocal<Encoder> ENCODERS = ThreadLocal.withInitial(Encoder::new);

  /**
   * Each thread's spare encoder for builders (a connector builds one per row): taken by a
   * builder, given back by its {@code build()}. Separate from {@link #ENCODERS}, so a builder
   * left unbuilt never slows {@link #of}.
   */
  private static final ThreadLocal<Encoder> BUILDER_ENCODERS = new ThreadLocal<>();

  /**
   * What is written of each record class before its components, and its component readers: made
   * once, looked up once per record. The class is written as its layout id: the first 16 bytes
   * of the SHA-256 of its simple name, its component count and its components' names (encoded as
   * any string and count is). Writing the names themselves made a third of the bytes hashed for
   * a row of four short components.
   */
  private record RecordLayout(byte[] id, RecordComponentAccess[] components) {}

  private static final ClassValue<RecordLayout> RECORD_LAYOUTS = new ClassValue<>() {
    @Override
    protected RecordLayout computeValue(Class<?> type) {
      RecordComponent[] components = type.getRecordComponents();
      RecordComponentAccess[] out = new RecordComponentAccess[components.length];
      for (int i = 0; i < components.length; i++) {
        java.lang.reflect.Method accessor = components[i].getAccessor();
        Class<?> t = components[i].getType();
        // Primitives are read unboxed (written as their boxes would be).
        int kind = t == boolean.class ? BOOLEAN_COMPONENT
            : t == char.class ? CHAR_COMPONENT
            : t == double.class || t == float.class ? FLOATING_COMPONENT
            : t.isPrimitive() ? INTEGRAL_COMPONENT
            : OBJECT_COMPONENT;
        Object reader;
        try {
          accessor.setAccessible(true);
          reader = ComponentReaders.of(type, accessor, kind);
        } catch (RuntimeException e) {
          // Not open to us: reading it reports the failure, naming the component.
          kind = OBJECT_COMPONENT;
          reader = ComponentReaders.reflective(accessor);
        }
        out[i] = new RecordComponentAccess(components[i].getName(), kind, reader);
      }
      Bytes names = new Bytes();
      names.writeString(type.getSimpleName());
      names.writeLong(components.length);
      for (RecordComponent c : components) {
        names.writeString(c.getName());
      }
      return new RecordLayout(names.digest().bytes, out);
    }
  };

  /** The encoding of a string's UTF-8 bytes: 8-byte length, then the bytes. */
  private static byte[] blob(String s) {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[8 + utf8.length];
    BIG_ENDIAN_LONGS.set(out, 0, (long) utf8.length);
    System.arraycopy(utf8, 0, out, 8, utf8.length);
    return out;
  }

  /**
   * A component's name (for error messages) and its reader: a {@code Function}, or for a primitive
   * a {@code ToLongFunction}, {@code ToDoubleFunction} or {@code Predicate} (see {@link
   * ComponentReaders}).
   */
  private record RecordComponentAccess(String name, int kind, Object reader) {
    @SuppressWarnings("unchecked")
    Object read(Record r) {
      return ((java.util.function.Function<Object, Object>) reader).apply(r);
    }

    @SuppressWarnings("unchecked")
    long readLong(Record r) {
      return ((java.util.function.ToLongFunction<Object>) reader).applyAsLong(r);
    }

    @SuppressWarnings("unchecked")
    double readDouble(Record r) {
      return ((java.util.function.ToDoubleFunction<Object>) reader).applyAsDouble(r);
    }

    @SuppressWarnings("unchecked")
    boolean readBoolean(Record r) {
      return ((java.util.function.Predicate<Object>) reader).test(r);
    }
  }

  static final int OBJECT_COMPONENT = 0, INTEGRAL_COMPONENT = 1, FLOATING_COMPONENT = 2,
      BOOLEAN_COMPONENT = 3, CHAR_COMPONENT = 4;

  /** Each enum's constants as written after the tag: the enum's simple name, then the name. */
  private static final ClassValue<byte[][]> ENUM_CONSTANTS = new ClassValue<>() {
    @Override
    protected byte[][] computeValue(Class<?> type) {
      Object[] constants = type.getEnumConstants();
      byte[] typeName = blob(type.getSimpleName());
      byte[][] out = new byte[constants.length][];
      for (int i = 0; i < constants.length; i++) {
        byte[] name = blob(((Enum<?>) constants[i]).name());
        out[i] = Arrays.copyOf(typeName, typeName.length + name.length);
        System.arraycopy(name, 0, out[i], typeName.length, name.length);
      }
      return out;
    }
  };

  /** A growable byte buffer: fingerprinting writes many small values. */
  private static final class Bytes {
    private byte[] buf = new byte[256];
    private int size;
    /** The whole SHA-256 digest, of which a fingerprint keeps the first {@link #LENGTH} bytes. */
    private final byte[] hash = new byte[32];

    void write(int b) {
      ensure(1);
      buf[size++] = (byte) b;
    }

    void writeBytes(byte[] b) {
      ensure(b.length);
      System.arraycopy(b, 0, buf, size, b.length);
      size += b.length;
    }

    void writeLong(long v) {
      ensure(8);
      BIG_ENDIAN_LONGS.set(buf, size, v);
      size += 8;
    }

    /**
     * Writes a string as its UTF-8 length and bytes, encoding in place: what {@code
     * getBytes(UTF_8)} gives (an unpaired surrogate as {@code '?'}, as ever).
     */
    void writeString(String s) {
      ensure(8 + 3 * s.length());
      int end = Utf8.encodeAsJdk(s, buf, size + 8);
      writeLong(end - size - 8);
      size = end;
    }

    private void ensure(int n) {
      if (size + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
      }
    }

    Fingerprint digest() {
      MessageDigest sha = SHA256.get();
      sha.reset();
      sha.update(buf, 0, size);
      try {
        sha.digest(hash, 0, hash.length);
      } catch (java.security.DigestException e) {
        throw new IllegalStateException("SHA-256 gives 32 bytes", e);
      }
      return new Fingerprint(Arrays.copyOf(hash, LENGTH));
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, size);
    }

    /** Drops a buffer grown by one huge value rather than keep it for the thread's life. */
    void shrink() {
      if (buf.length > 1 << 16) {
        buf = new byte[256];
      }
    }
  }

  /**
   * Fingerprints raw bytes (tagged as bytes).
   *
   * @param b the bytes, or null
   * @return the same fingerprint as {@code of(b)}
   */
  public static Fingerprint ofBytes(byte[] b) {
    return of(b);
  }

  /**
   * Fingerprints a string (tagged as a string).
   *
   * @param s the string, or null
   * @return the same fingerprint as {@code of(s)}
   */
  public static Fingerprint ofString(String s) {
    return of(s);
  }

  /**
   * A builder that fingerprints values one by one, as {@link #of} would fingerprint them together,
   * without boxing them or collecting them in a list first: for a connector that fingerprints
   * every row of every run.
   *
   * <pre>{@code
   * Fingerprint.builder().beginList(2).add("a").add(1L).build()
   *     .equals(Fingerprint.of(List.of("a", 1L)))  // true
   * }</pre>
   *
   * @return a new, empty builder, for the calling thread only
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Writes values in {@link #of}'s canonical encoding. A list is written as {@link
   * #beginList(int)} followed by exactly that many values (each of which may itself be a list).
   * Not thread-safe; {@link #build()} ends it.
   */
  public static final class Builder {
    /** The encoder this builder writes into, taken from the thread's spare; null once built. */
    private Encoder enc;

    private Builder() {
      Encoder spare = BUILDER_ENCODERS.get();
      if (spare == null) {
        spare = new Encoder();
      } else {
        BUILDER_ENCODERS.set(null); // a builder abandoned unbuilt just costs the next one a new one
      }
      spare.out.size = 0;
      enc = spare;
    }

    private Encoder enc() {
      Encoder e = enc;
      if (e == null) {
        throw new IllegalStateException(
            "this fingerprint builder was built already: start another with Fingerprint.builder()");
      }
      return e;
    }

    /**
     * Starts a list (or array) of {@code size} values: the next {@code size} values.
     *
     * @param size the number of values the list holds; zero for an empty list
     * @return this builder, for the next value
     * @throws IllegalArgumentException when {@code size} is negative
     * @throws IllegalStateException when this builder was built already
     */
    public Builder beginList(int size) {
      if (size < 0) {
        throw new IllegalArgumentException("a list has no negative size: " + size);
      }
      Encoder e = enc();
      e.out.write(Encoder.LIST);
      e.writeLong(size);
      return this;
    }

    /**
     * Adds a string, or a null.
     *
     * @param s the string, or null to add a null
     * @return this builder, for the next value
     * @throws IllegalStateException when this builder was built already
     */
    public Builder add(String s) {
      if (s == null) {
        return addNull();
      }
      Encoder e = enc();
      e.out.write(Encoder.STRING);
      e.out.writeString(s);
      return this;
    }

    /**
     * Adds an integral number, as a {@code Long} (or {@code Integer}, ...) would be added.
     *
     * @param v the number
     * @return this builder, for the next value
     * @throws IllegalStateException when this builder was built already
     */
    public Builder add(long v) {
      Encoder e = enc();
      e.out.write(Encoder.INT);
      e.writeLong(v);
      return this;
    }

    /**
     * Adds a character, as a {@code Character} would be added (without this overload a {@code
     * char} would widen to {@link #add(long)} and fingerprint as a number).
     *
     * @param c the character
     * @return this builder, for the next value
     * @throws IllegalStateException when this builder was built already
     */
    public Builder add(char c) {
      Encoder e = enc();
      e.out.write(Encoder.CHAR);
      e.writeLong(c);
      return this;
    }

    /**
     * Adds a floating-point number, as a {@code Double} (or {@code Float}) would be added.
     *
     * @param v the number
     * @return this builder, for the next value
     * @throws IllegalStateException when this builder was built already
     */
    public Builder add(double v) {
      Encoder e = enc();
      e.out.write(Encoder.FLOAT);
      e.writeLong(Double.doubleToLongBits(v));
      return this;
    }

    /**
     * Adds a byte string, or a null.
     *
     * @param b the bytes, or null to add a null
     * @return this builder, for the next value
     * @throws IllegalStateException when this builder was built already
     */
    public Builder add(byte[] b) {
      if (b == null) {
        return addNull();
      }
      Encoder e = enc();
      e.out.write(Encoder.BYTES);
      e.writeBlob(b);
      return this;
    }

    /**
     * Adds a fingerprint, or a null.
     *
     * @param f the fingerprint, or null to add a null
     * @return this builder, for the next value
     * @throws IllegalStateException when this builder was built already
     */
    public Builder add(Fingerprint f) {
      if (f == null) {
        return addNull();
      }
      Encoder e = enc();
      e.out.write(Encoder.FINGERPRINT);
      e.out.writeBytes(f.bytes);
      return this;
    }

    /**
     * Adds any value {@link #of} accepts.
     *
     * @param v the value, of a type {@link #of} accepts (its nested values too)
     * @return this builder, for the next value
     * @throws IllegalArgumentException naming the type of an unsupported (nested) value
     * @throws IllegalStateException when this builder was built already
     */
    public Builder add(Object v) {
      enc().write(v);
      return this;
    }

    /**
     * Adds a null.
     *
     * @return this builder, for the next value
     * @throws IllegalStateException when this builder was built already
     */
    public Builder addNull() {
      enc().out.write(Encoder.NULL);
      return this;
    }

    /**
     * The fingerprint of everything added. Ends the builder: adding to it afterwards, or building
     * it again, throws {@link IllegalStateException}.
     *
     * @return the fingerprint {@link #of} gives for the same values
     * @throws IllegalStateException when this builder was built already
     */
    public Fingerprint build() {
      Encoder e = enc();
      enc = null;
      Fingerprint result = e.out.digest();
      e.out.shrink();
      BUILDER_ENCODERS.set(e);
      return result;
    }
  }

  /**
   * Parses the {@link #toString()} form {@code #<32 hex digits>}.
   *
   * @param text the 32 hex digits, with or without the leading {@code #}
   * @return the fingerprint they spell
   * @throws IllegalArgumentException when {@code text} is not 32 hex digits
   */
  public static Fingerprint parse(String text) {
    String hex = text.startsWith("#") ? text.substring(1) : text;
    return new Fingerprint(HexFormat.of().parseHex(hex));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fingerprint f && Arrays.equals(bytes, f.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public int compareTo(Fingerprint o) {
    return Arrays.compareUnsigned(bytes, o.bytes);
  }

  /** {@code #} followed by 32 lower-case hex digits. */
  @Override
  public String toString() {
    return "#" + HexFormat.of().formatHex(bytes);
  }

  /** One digest per thread: MessageDigest.getInstance looks up providers on every call. */
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  });

  /** The canonical encoding: one tag byte per value, lengths before variable-size payloads. */
  private static final class Encoder {
    private static final byte NULL = 0, FALSE = 1, TRUE = 2, INT = 3, FLOAT = 4, BIG_INT = 5,
        DECIMAL = 6, STRING = 7, BYTES = 8, CHAR = 9, UUID_TAG = 10, LIST = 11, SET = 12, MAP = 13,
        RECORD = 14, ENUM = 15, FINGERPRINT = 16, KEY = 17;

    final Bytes out = new Bytes();
    boolean busy;

    void write(Object v) {
      // Most frequent kinds first. Fingerprint and StableKey are records: before Record.
      if (v == null) {
        out.write(NULL);
      } else if (v instanceof String s) {
        out.write(STRING);
        out.writeString(s);
      } else if (v instanceof Fingerprint f) {
        out.write(FINGERPRINT);
        out.writeBytes(f.bytes);
      } else if (v instanceof StableKey k) {
        out.write(KEY);
        writeKey(k);
      } else if (v instanceof Record r) {
        writeRecord(r);
      } else if (v instanceof Long || v instanceof Integer || v instanceof Short
          || v instanceof Byte) {
        out.write(INT);
        writeLong(((Number) v).longValue());
      } else if (v instanceof Boolean b) {
        out.write(b ? TRUE : FALSE);
      } else if (v instanceof Double || v instanceof Float) {
        out.write(FLOAT);
        writeLong(Double.doubleToLongBits(((Number) v).doubleValue()));
      } else if (v instanceof Enum<?> e) {
        out.write(ENUM);
        out.writeBytes(ENUM_CONSTANTS.get(e.getDeclaringClass())[e.ordinal()]);
      } else if (v instanceof Set<?> s) {
        out.write(SET);
        writeSorted(s);
      } else if (v instanceof List<?> l) {
        out.write(LIST);
        int n = l.size();
        writeLong(n);
        if (l instanceof java.util.RandomAccess) {
          for (int i = 0; i < n; i++) {
            write(l.get(i));
          }
        } else {
          l.forEach(this::write);
        }
      } else if (v instanceof byte[] b) {
        out.write(BYTES);
        writeBlob(b);
      } else if (v instanceof Optional<?> o) {
        write(o.orElse(null));
      } else if (v instanceof Map<?, ?> m) {
        out.write(MAP);
        List<byte[]> entries = new ArrayList<>(m.size());
        for (Map.Entry<?, ?> e : m.entrySet()) {
          Encoder sub = new Encoder();
          sub.write(e.getKey());
          sub.write(e.getValue());
          entries.add(sub.out.toByteArray());
        }
        writeSortedBlobs(entries);
      } else if (v instanceof Character c) {
        out.write(CHAR);
        writeLong(c);
      } else if (v instanceof UUID u) {
        out.write(UUID_TAG);
        writeLong(u.getMostSignificantBits());
        writeLong(u.getLeastSignificantBits());
      } else if (v instanceof BigInteger bi) {
        out.write(BIG_INT);
        writeBlob(bi.toByteArray());
      } else if (v instanceof BigDecimal bd) {
        out.write(DECIMAL);
        writeBlob(bd.toString().getBytes(StandardCharsets.UTF_8));
      } else if (v instanceof Object[] a) {
        out.write(LIST);
        writeLong(a.length);
        for (Object item : a) {
          write(item);
        }
      } else if (v instanceof Collection<?> c) {
        out.write(LIST);
        writeLong(c.size());
        c.forEach(this::write);
      } else {
        throw new IllegalArgumentException(
            "cannot fingerprint a value of type " + v.getClass().getName()
                + ": use records, enums, strings, numbers, booleans, byte[], UUID, collections,"
                + " maps, Optional, Fingerprint or StableKey");
      }
    }

    private void writeRecord(Record r) {
      out.write(RECORD);
      RecordLayout layout = RECORD_LAYOUTS.get(r.getClass());
      out.writeBytes(layout.id());
      for (RecordComponentAccess c : layout.components()) {
        Object value;
        try {
          if (c.kind() != OBJECT_COMPONENT) {
            writePrimitive(c, r);
            continue;
          }
          value = c.read(r);
        } catch (RuntimeException e) {
          throw new IllegalArgumentException(
              "cannot read " + r.getClass().getName() + "." + c.name() + " to fingerprint it", e);
        }
        try {
          write(value);
        } catch (IllegalArgumentException iae) {
          if (iae.getMessage() != null && iae.getMessage().startsWith("cannot fingerprint")) {
            throw new IllegalArgumentException(
                iae.getMessage() + " (in " + r.getClass().getName() + "." + c.name() + ")");
          }
          throw iae;
        }
      }
    }

    /** A primitive component, as {@link #write} writes its box. */
    private void writePrimitive(RecordComponentAccess c, Record r) {
      switch (c.kind()) {
        case INTEGRAL_COMPONENT:
          out.write(INT);
          writeLong(c.readLong(r));
          break;
        case FLOATING_COMPONENT:
          out.write(FLOAT);
          writeLong(Double.doubleToLongBits(c.readDouble(r)));
          break;
        case BOOLEAN_COMPONENT:
          out.write(c.readBoolean(r) ? TRUE : FALSE);
          break;
        default:
          out.write(CHAR);
          writeLong(c.readLong(r));
      }
    }

    private void writeSorted(Collection<?> items) {
      List<byte[]> encoded = new ArrayList<>(items.size());
      for (Object item : items) {
        Encoder sub = new Encoder();
        sub.write(item);
        encoded.add(sub.out.toByteArray());
      }
      writeSortedBlobs(encoded);
    }

    private void writeSortedBlobs(List<byte[]> blobs) {
      blobs.sort(Arrays::compareUnsigned);
      writeLong(blobs.size());
      blobs.forEach(out::writeBytes);
    }

    private void writeKey(StableKey k) {
      if (k instanceof StableKey.Null) {
        out.write(NULL);
      } else if (k instanceof StableKey.Bool b) {
        out.write(b.value() ? TRUE : FALSE);
      } else if (k instanceof StableKey.Int i) {
        out.write(INT);
        writeLong(i.value());
      } else if (k instanceof StableKey.Str s) {
        out.write(STRING);
        writeString(s.value());
      } else if (k instanceof StableKey.Bytes b) {
        out.write(BYTES);
        writeBlob(b.value());
      } else if (k instanceof StableKey.Uuid u) {
        write(u.value());
      } else if (k instanceof StableKey.Symbol s) {
        out.write(ENUM);
        writeString(s.name());
      } else if (k instanceof StableKey.Array a) {
        out.write(LIST);
        writeLong(a.items().size());
        a.items().forEach(this::writeKey);
      } else {
        write(((StableKey.Fp) k).value());
      }
    }

    private void writeString(String s) {
      out.writeString(s);
    }

    private void writeBlob(byte[] b) {
      writeLong(b.length);
      out.writeBytes(b);
    }

    private void writeLong(long v) {
      out.writeLong(v);
    }
  }
}
