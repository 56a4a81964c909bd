package io.cocoindex.runtime.codec;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.codec.Utf8;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The codec of a type the engine cannot see: a handler's {@code V}, {@code R} or {@code A} that
 * is erased (a lambda's, a generic handler class's type variable) or declared as {@code Object},
 * or a type that leaves the classes inside its values open ({@code Map<String, Object>}, an
 * interface: see {@link ExactTypes}).
 * Every value is written with its runtime class, so it reads back as what was written, in any
 * JVM: records by component name (a component added later reads as its default, one removed is
 * an error naming it), enums by constant name, lists, sets, maps, optionals and arrays element by
 * element, scalars by kind ({@code 1} stays an {@code Integer}, {@code 1L} a {@code Long}). Any
 * other class is written by its own codec from the registry (generated, or Jackson).
 *
 * <p>A list, set or map of a public class with a public no-argument constructor ({@code
 * ArrayList}, {@code HashMap}, {@code TreeSet}, ...) reads back as that class, so that a handler
 * typed {@code ArrayList<String>} gets one, and so does an {@code EnumSet} or a non-empty {@code
 * EnumMap} (an empty one too where a record component declares it, with its enum); any other
 * ({@code List.of}'s, {@code Arrays.asList}'s, an unmodifiable view's) reads back unmodifiable,
 * and a record component declared as a collection class gets one of that class. Decoded
 * collections keep the written order; a map's or set's entries are written sorted (a sorted
 * one's in its own order; others by their keys when those are of one comparable class, else by
 * the keys' encodings), so equal values of one class encode alike. A string is written as UTF-8
 * unless it has an unpaired surrogate (then UTF-16, so that it still reads back as it was). An
 * anonymous, local (not record) or inner class's value is refused at writing, since it could not
 * be created again on reading. Bytes written before this codec existed (Jackson's Smile, for a
 * handler typed {@code Object} or {@code Map<String, Object>}) still read, as Jackson reads them.
 */
public final class DynamicCodec implements Codec<Object> {
  /** The first two bytes of every value: never Smile's ':' header. */
  private static final int MAGIC = 0xD1;

  private static final int VERSION = 1;
  /** Deeper than this, a value is taken to be cyclic. */
  private static final int MAX_DEPTH = 512;

  private static final int NULL = 0;
  private static final int FALSE = 1;
  private static final int TRUE = 2;
  private static final int INT = 3;
  private static final int LONG = 4;
  private static final int SHORT = 5;
  private static final int BYTE = 6;
  private static final int CHAR = 7;
  private static final int FLOAT = 8;
  private static final int DOUBLE = 9;
  private static final int STRING = 10;
  private static final int BYTES = 11;
  private static final int BIG_INTEGER = 12;
  private static final int BIG_DECIMAL = 13;
  private static final int UUID_TAG = 14;
  private static final int FINGERPRINT = 15;
  private static final int STABLE_KEY = 16;
  private static final int LIST = 17;
  private static final int SET = 18;
  private static final int MAP = 19;
  private static final int OPTIONAL = 20;
  private static final int ENUM = 21;
  private static final int RECORD = 22;
  private static final int ARRAY = 23;
  private static final int OTHER = 24;
  /** A string as UTF-8 (one without unpaired surrogates); {@link #STRING} keeps UTF-16. */
  private static final int STRING_UTF8 = 25;
  /** A list, set or map of a class that is rebuilt on reading ({@link #rebuildable}). */
  private static final int LIST_OF = 26;
  private static final int SET_OF = 27;
  private static final int MAP_OF = 28;
  /** An EnumSet or EnumMap, with its enum class: read back as one (a handler may cast to it). */
  private static final int ENUM_SET = 29;
  private static final int ENUM_MAP = 30;

  private final CodecRegistry registry;
  /** The type it stands for: its values written before this codec read by Jackson's codec. */
  private final Type type;
  private final Map<String, Class<?>> classes = new ConcurrentHashMap<>();
  private volatile Codec<Object> legacy;

  DynamicCodec(CodecRegistry registry, Type type) {
    this.registry = registry;
    this.type = type;
  }

  @Override
  public boolean keepsClasses() {
    return true;
  }

  @Override
  public byte[] encode(Object value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    DataOutputStream out = new DataOutputStream(bytes);
    try {
      out.writeByte(MAGIC);
      out.writeByte(VERSION);
      write(out, value, 0);
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory failed", e); // cannot happen
    }
    return bytes.toByteArray();
  }

  @Override
  public Object decode(byte[] bytes) {
    if (bytes.length == 0 || (bytes[0] & 0xFF) != MAGIC) {
      return legacy().decode(bytes);
    }
    if (bytes.length < 2 || bytes[1] != VERSION) {
      throw new CodecException("cannot deserialize a value of a dynamic type: unknown format "
          + (bytes.length < 2 ? "(truncated)" : "version " + bytes[1]));
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 2, bytes.length - 2));
    try {
      Object value = read(in, 0);
      if (in.available() > 0) {
        throw new CodecException(
            "cannot deserialize a value of a dynamic type: trailing data after the value");
      }
      return value;
    } catch (EOFException e) {
      throw new CodecException("cannot deserialize a value of a dynamic type: truncated", e);
    } catch (IOException e) {
      throw new CodecException("cannot deserialize a value of a dynamic type: " + e, e);
    }
  }

  /**
   * Decodes {@code bytes} that {@code type}'s own codec wrote: a value declared before its
   * handler was known, now that the handler turned out to have a dynamic value type.
   *
   * @param type the class whose codec wrote {@code bytes} (the declared value's)
   * @param bytes the encoded value
   * @return the decoded value
   * @throws CodecException if {@code bytes} do not decode as {@code type}
   */
  public Object decodeAs(Class<?> type, byte[] bytes) {
    return registry.codecFor(type).decode(bytes);
  }

  private Codec<Object> legacy() {
    Codec<Object> c = legacy;
    if (c == null) {
      c = registry.factoryCodecFor(type);
      legacy = c;
    }
    return c;
  }

  // ---- writing ----

  @SuppressWarnings({"unchecked", "rawtypes"})
  private void write(DataOutputStream out, Object v, int depth) throws IOException {
    if (depth > MAX_DEPTH) {
      throw new CodecException("cannot serialize a value of a dynamic type: nested deeper than "
          + MAX_DEPTH + " levels (does it contain itself?)");
    }
    if (v == null) {
      out.writeByte(NULL);
    } else if (v instanceof Boolean b) {
      out.writeByte(b ? TRUE : FALSE);
    } else if (v instanceof Integer i) {
      out.writeByte(INT);
      out.writeInt(i);
    } else if (v instanceof Long l) {
      out.writeByte(LONG);
      out.writeLong(l);
    } else if (v instanceof String s) {
      if (Utf8.isWellFormed(s)) { // no unpaired surrogate: UTF-8 keeps it exactly
        out.writeByte(STRING_UTF8);
        writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
      } else {
        out.writeByte(STRING);
        writeString(out, s);
      }
    } else if (v instanceof Short s) {
      out.writeByte(SHORT);
      out.writeShort(s);
    } else if (v instanceof Byte b) {
      out.writeByte(BYTE);
      out.writeByte(b);
    } else if (v instanceof Character c) {
      out.writeByte(CHAR);
      out.writeChar(c);
    } else if (v instanceof Float f) {
      out.writeByte(FLOAT);
      out.writeInt(Float.floatToRawIntBits(f));
    } else if (v instanceof Double d) {
      out.writeByte(DOUBLE);
      out.writeLong(Double.doubleToRawLongBits(d));
    } else if (v instanceof byte[] b) {
      out.writeByte(BYTES);
      writeBytes(out, b);
    } else if (v instanceof BigInteger b) {
      out.writeByte(BIG_INTEGER);
      writeBytes(out, b.toByteArray());
    } else if (v instanceof BigDecimal b) {
      out.writeByte(BIG_DECIMAL);
      out.writeInt(b.scale());
      writeBytes(out, b.unscaledValue().toByteArray());
    } else if (v instanceof UUID u) {
      out.writeByte(UUID_TAG);
      out.writeLong(u.getMostSignificantBits());
      out.writeLong(u.getLeastSignificantBits());
    } else if (v instanceof Fingerprint f) {
      out.writeByte(FINGERPRINT);
      out.write(f.bytes());
    } else if (v instanceof StableKey k) {
      out.writeByte(STABLE_KEY);
      writeBytes(out, KeyEncoding.encode(k));
    } else if (v instanceof List<?> list) {
      writeCollectionHeader(out, v, LIST, LIST_OF);
      out.writeInt(list.size());
      for (Object e : list) {
        write(out, e, depth + 1);
      }
    } else if (v instanceof EnumSet<?> es && enumOf(es) != null) {
      out.writeByte(ENUM_SET);
      writeString(out, enumOf(es).getName());
      out.writeInt(es.size());
      for (Object e : es) {
        write(out, e, depth + 1);
      }
    } else if (v instanceof EnumMap<?, ?> em && !em.isEmpty()) {
      out.writeByte(ENUM_MAP);
      writeString(out, ((Enum<?>) em.keySet().iterator().next()).getDeclaringClass().getName());
      out.writeInt(em.size());
      for (Map.Entry<?, ?> e : em.entrySet()) {
        write(out, e.getKey(), depth + 1);
        write(out, e.getValue(), depth + 1);
      }
    } else if (v instanceof Set<?> set) {
      writeCollectionHeader(out, v, SET, SET_OF);
      out.writeInt(set.size());
      for (Object e : set instanceof java.util.SortedSet ? set : inOrder((Collection) set, depth)) {
        write(out, e, depth + 1);
      }
    } else if (v instanceof Map<?, ?> map) {
      writeCollectionHeader(out, v, MAP, MAP_OF);
      out.writeInt(map.size());
      List<Object> keys = map instanceof java.util.SortedMap
          ? new ArrayList<>(map.keySet()) // already in an order of its own: keep it
          : inOrder((Collection) map.keySet(), depth);
      for (Object k : keys) {
        write(out, k, depth + 1);
        write(out, map.get(k), depth + 1);
      }
    } else if (v instanceof Optional<?> o) {
      out.writeByte(OPTIONAL);
      out.writeBoolean(o.isPresent());
      if (o.isPresent()) {
        write(out, o.get(), depth + 1);
      }
    } else if (v instanceof Enum<?> e) {
      out.writeByte(ENUM);
      writeString(out, e.getDeclaringClass().getName());
      writeString(out, e.name());
    } else if (v.getClass().isRecord()) {
      writeRecord(out, v, depth);
    } else if (v.getClass().isArray()) {
      out.writeByte(ARRAY);
      writeString(out, v.getClass().getComponentType().getName());
      int n = Array.getLength(v);
      out.writeInt(n);
      for (int i = 0; i < n; i++) {
        write(out, Array.get(v, i), depth + 1);
      }
    } else {
      checkRecreatable(v.getClass());
      out.writeByte(OTHER);
      writeString(out, v.getClass().getName());
      writeBytes(out, registry.codecFor((Class<Object>) v.getClass()).encode(v));
    }
  }

  private void writeRecord(DataOutputStream out, Object v, int depth) throws IOException {
    RecordShape shape = RecordShape.of(v.getClass());
    out.writeByte(RECORD);
    writeString(out, v.getClass().getName());
    out.writeInt(shape.names.length);
    for (int i = 0; i < shape.names.length; i++) {
      writeString(out, shape.names[i]);
      Object component;
      try {
        component = shape.accessors[i].invoke(v);
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new CodecException("cannot serialize " + v.getClass().getName() + ": reading its "
            + "component '" + shape.names[i] + "' failed: " + e, e);
      }
      write(out, component, depth + 1);
    }
  }

  /**
   * The tag of a list, set or map: with its class name when the class is {@link #rebuildable},
   * so that it reads back as that class (an {@code ArrayList} as an {@code ArrayList}: a handler
   * typed {@code ArrayList<String>} casts to it); else the plain tag, read as unmodifiable.
   */
  private static void writeCollectionHeader(DataOutputStream out, Object v, int plain, int of)
      throws IOException {
    if (REBUILDABLE.get(v.getClass()) && !hasComparator(v)) {
      out.writeByte(of);
      writeString(out, v.getClass().getName());
    } else {
      out.writeByte(plain);
    }
  }

  /** A sorted collection in an order of its own, which reading could not restore. */
  private static boolean hasComparator(Object v) {
    return v instanceof java.util.SortedSet<?> s && s.comparator() != null
        || v instanceof java.util.SortedMap<?, ?> m && m.comparator() != null;
  }

  /**
   * Whether a collection class can be made again from its elements: public, concrete, with a
   * public no-argument constructor ({@code ArrayList}, {@code HashMap}, {@code TreeSet}, a
   * user's subclass of one). {@code List.of}'s, {@code Arrays.asList}'s and the unmodifiable
   * wrappers' classes are not: those read back as unmodifiable collections.
   */
  private static final ClassValue<Boolean> REBUILDABLE = new ClassValue<>() {
    @Override
    protected Boolean computeValue(Class<?> type) {
      return rebuildable(type);
    }
  };

  private static boolean rebuildable(Class<?> type) {
    if (!Modifier.isPublic(type.getModifiers()) || Modifier.isAbstract(type.getModifiers())
        || type.isInterface() || type.isAnonymousClass() || type.isLocalClass()
        || (type.isMemberClass() && !Modifier.isStatic(type.getModifiers()))) {
      return false;
    }
    for (Class<?> c = type.getDeclaringClass(); c != null; c = c.getDeclaringClass()) {
      if (!Modifier.isPublic(c.getModifiers())) {
        return false;
      }
    }
    try {
      return Modifier.isPublic(type.getConstructor().getModifiers());
    } catch (NoSuchMethodException | SecurityException e) {
      return false;
    }
  }

  /**
   * Refuses, at writing, a class whose instances its codec could not create again on reading:
   * an anonymous or local class (other than a record or enum), an inner class, a lambda's.
   */
  private static void checkRecreatable(Class<?> type) {
    String why = type.isAnonymousClass() ? "an anonymous class"
        : type.isLocalClass() ? "a local class that is not a record"
        : type.isHidden() ? "a hidden class (a lambda's?)"
        : type.isMemberClass() && !Modifier.isStatic(type.getModifiers())
            ? "an inner (non-static) class"
            : null;
    if (why != null) {
      throw new CodecException("cannot serialize a value of " + type.getName() + ": it is " + why
          + ", whose instances cannot be created again when the value is read; declare a record"
          + " (or a static class with a no-argument constructor) instead");
    }
  }

  /**
   * The elements of a set (or a map's keys) in an order that does not depend on how they were
   * added: sorted when they are all of one comparable class, else by their encodings (keys of
   * several classes, records), so that equal sets and maps encode alike. (Written as iterated,
   * two equal {@code HashMap}s of different capacities could encode differently, and a
   * container's record, compared as bytes, read as changed.)
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private List<Object> inOrder(Collection<Object> elements, int depth) throws IOException {
    List<Object> list = new ArrayList<>(elements);
    if (list.size() < 2) {
      return list;
    }
    if (ofOneComparableClass(list)) {
      list.sort((a, b) -> ((Comparable) a).compareTo(b));
      return list;
    }
    byte[][] encoded = new byte[list.size()][];
    Integer[] order = new Integer[list.size()];
    for (int i = 0; i < encoded.length; i++) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      write(new DataOutputStream(bytes), list.get(i), depth + 1);
      encoded[i] = bytes.toByteArray();
      order[i] = i;
    }
    java.util.Arrays.sort(
        order, (a, b) -> java.util.Arrays.compareUnsigned(encoded[a], encoded[b]));
    List<Object> sorted = new ArrayList<>(list.size());
    for (Integer i : order) {
      sorted.add(list.get(i));
    }
    return sorted;
  }

  private static boolean ofOneComparableClass(List<Object> list) {
    Class<?> first = list.get(0) == null ? null : list.get(0).getClass();
    if (first == null || !Comparable.class.isAssignableFrom(first)) {
      return false;
    }
    for (Object o : list) {
      if (o == null || o.getClass() != first) {
        return false;
      }
    }
    return true;
  }

  /** As UTF-16 code units: any Java string, unpaired surrogates included, reads back as it was. */
  private static void writeString(DataOutputStream out, String s) throws IOException {
    int n = s.length();
    byte[] b = new byte[2 * n];
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      b[2 * i] = (byte) (c >>> 8);
      b[2 * i + 1] = (byte) c;
    }
    out.writeInt(n);
    out.write(b);
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b.length);
    out.write(b);
  }

  // ---- reading ----

  private Object read(DataInputStream in, int depth) throws IOException {
    if (depth > MAX_DEPTH) {
      throw new CodecException("cannot deserialize a value of a dynamic type: nested deeper than "
          + MAX_DEPTH + " levels");
    }
    int tag = in.readUnsignedByte();
    switch (tag) {
      case NULL:
        return null;
      case FALSE:
        return Boolean.FALSE;
      case TRUE:
        return Boolean.TRUE;
      case INT:
        return in.readInt();
      case LONG:
        return in.readLong();
      case SHORT:
        return in.readShort();
      case BYTE:
        return in.readByte();
      case CHAR:
        return in.readChar();
      case FLOAT:
        return Float.intBitsToFloat(in.readInt());
      case DOUBLE:
        return Double.longBitsToDouble(in.readLong());
      case STRING:
        return readString(in);
      case STRING_UTF8:
        return new String(readBytes(in), StandardCharsets.UTF_8);
      case BYTES:
        return readBytes(in);
      case BIG_INTEGER:
        return new BigInteger(readBytes(in));
      case BIG_DECIMAL: {
        int scale = in.readInt();
        return new BigDecimal(new BigInteger(readBytes(in)), scale);
      }
      case UUID_TAG:
        return new UUID(in.readLong(), in.readLong());
      case FINGERPRINT: {
        byte[] b = new byte[Fingerprint.LENGTH];
        in.readFully(b);
        return new Fingerprint(b);
      }
      case STABLE_KEY:
        return KeyEncoding.decode(readBytes(in));
      case LIST_OF: {
        Collection<Object> list = newInstance(Collection.class, readString(in));
        int n = count(in);
        for (int i = 0; i < n; i++) {
          list.add(read(in, depth + 1));
        }
        return list;
      }
      case SET_OF: {
        Collection<Object> set = newInstance(Collection.class, readString(in));
        int n = count(in);
        for (int i = 0; i < n; i++) {
          set.add(read(in, depth + 1));
        }
        return set;
      }
      case MAP_OF: {
        Map<Object, Object> map = newInstance(Map.class, readString(in));
        int n = count(in);
        for (int i = 0; i < n; i++) {
          Object k = read(in, depth + 1);
          map.put(k, read(in, depth + 1));
        }
        return map;
      }
      case ENUM_SET: {
        Class<?> type = enumNamed(readString(in));
        Set<Object> set = emptyEnumSet(type);
        int n = count(in);
        for (int i = 0; i < n; i++) {
          set.add(type.cast(read(in, depth + 1)));
        }
        return set;
      }
      case ENUM_MAP: {
        Class<?> type = enumNamed(readString(in));
        Map<Object, Object> map = emptyEnumMap(type);
        int n = count(in);
        for (int i = 0; i < n; i++) {
          Object k = type.cast(read(in, depth + 1));
          map.put(k, read(in, depth + 1));
        }
        return map;
      }
      case LIST: {
        int n = count(in);
        List<Object> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(read(in, depth + 1));
        }
        return Collections.unmodifiableList(list);
      }
      case SET: {
        int n = count(in);
        Set<Object> set = new LinkedHashSet<>(capacity(n));
        for (int i = 0; i < n; i++) {
          set.add(read(in, depth + 1));
        }
        return Collections.unmodifiableSet(set);
      }
      case MAP: {
        int n = count(in);
        Map<Object, Object> map = new LinkedHashMap<>(capacity(n));
        for (int i = 0; i < n; i++) {
          Object k = read(in, depth + 1);
          map.put(k, read(in, depth + 1));
        }
        return Collections.unmodifiableMap(map);
      }
      case OPTIONAL:
        return in.readBoolean() ? Optional.ofNullable(read(in, depth + 1)) : Optional.empty();
      case ENUM:
        return readEnum(in);
      case RECORD:
        return readRecord(in, depth);
      case ARRAY: {
        Class<?> component = classNamed(readString(in));
        int n = count(in);
        Object array = Array.newInstance(component, n);
        for (int i = 0; i < n; i++) {
          Object e = read(in, depth + 1);
          try {
            Array.set(array, i, e);
          } catch (IllegalArgumentException ex) {
            throw new CodecException("stored " + component.getName() + "[] holds "
                + describe(e) + ", which the array type no longer takes", ex);
          }
        }
        return array;
      }
      case OTHER: {
        Class<?> type = classNamed(readString(in));
        return registry.codecFor(type).decode(readBytes(in));
      }
      default:
        throw new CodecException(
            "cannot deserialize a value of a dynamic type: corrupt (tag " + tag + ")");
    }
  }

  /** A new, empty instance of the stored collection class {@code name}. */
  @SuppressWarnings("unchecked")
  private <C> C newInstance(Class<?> kind, String name) {
    Class<?> type = classNamed(name);
    if (!kind.isAssignableFrom(type)) {
      throw new CodecException("stored " + name + " is no longer a " + kind.getSimpleName());
    }
    try {
      return (C) type.getConstructor().newInstance();
    } catch (InvocationTargetException e) {
      throw new CodecException("cannot deserialize a stored " + name + ": its constructor failed: "
          + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new CodecException("cannot deserialize a stored " + name + ": it has no public"
          + " no-argument constructor any more: " + e, e);
    }
  }

  /**
   * The enum class of {@code set}: its first element's, or for an empty set its complement's;
   * null for an enum without constants (then it is written as a plain set).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Class<?> enumOf(EnumSet<?> set) {
    EnumSet<?> some = set.isEmpty() ? EnumSet.complementOf((EnumSet) set) : set;
    return some.isEmpty() ? null : ((Enum<?>) some.iterator().next()).getDeclaringClass();
  }

  /** The stored enum class {@code name}. */
  private Class<?> enumNamed(String name) {
    Class<?> type = classNamed(name);
    if (!type.isEnum()) {
      throw new CodecException("stored enum " + name + " is no longer an enum");
    }
    return type;
  }

  /** An empty {@code EnumSet} of the enum class {@code type}, known only from the stored name. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Set<Object> emptyEnumSet(Class<?> type) {
    return (Set<Object>) EnumSet.noneOf((Class) type);
  }

  /** An empty {@code EnumMap} keyed by the enum class {@code type}, known as above. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Map<Object, Object> emptyEnumMap(Class<?> type) {
    return new EnumMap((Class) type);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Object readEnum(DataInputStream in) throws IOException {
    Class<?> type = classNamed(readString(in));
    String name = readString(in);
    if (!type.isEnum()) {
      throw new CodecException("stored enum " + type.getName() + " is no longer an enum");
    }
    try {
      return Enum.valueOf((Class) type, name);
    } catch (IllegalArgumentException e) {
      throw new CodecException("stored " + type.getName() + " constant '" + name
          + "' that the enum no longer has (removed or renamed?)", e);
    }
  }

  private Object readRecord(DataInputStream in, int depth) throws IOException {
    Class<?> type = classNamed(readString(in));
    if (!type.isRecord()) {
      throw new CodecException("stored record " + type.getName() + " is no longer a record");
    }
    RecordShape shape = RecordShape.of(type);
    Object[] args = new Object[shape.names.length];
    boolean[] seen = new boolean[args.length];
    int n = count(in);
    for (int i = 0; i < n; i++) {
      String name = readString(in);
      Object value = read(in, depth + 1);
      Integer index = shape.indexes.get(name);
      if (index == null) {
        throw new CodecException(CodecException.removedField(type.getName(), "record", name));
      }
      args[index] = fit(type, name, shape.types[index], shape.genericTypes[index], value);
      seen[index] = true;
    }
    for (int i = 0; i < args.length; i++) {
      if (!seen[i] && shape.types[i].isPrimitive()) {
        args[i] = Array.get(Array.newInstance(shape.types[i], 1), 0); // its default: 0, false
      }
    }
    try {
      return shape.constructor.newInstance(args);
    } catch (InvocationTargetException e) {
      throw new CodecException("cannot deserialize " + type.getName() + ": its constructor"
          + " rejected the stored components: " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new CodecException("cannot deserialize " + type.getName() + ": " + e, e);
    }
  }

  /**
   * {@code value} as component {@code name} of {@code type} ({@code genericType} with its type
   * arguments) takes it: numbers convert.
   */
  private static Object fit(
      Class<?> record, String name, Class<?> type, Type genericType, Object value) {
    Class<?> boxed = boxed(type);
    if (value == null) {
      if (type.isPrimitive()) {
        throw new CodecException("stored " + record.getName() + " has null for its "
            + type.getName() + " component '" + name + "'");
      }
      return null;
    }
    if (boxed.isInstance(value)) {
      return value;
    }
    Object converted = asCollection(boxed, genericType, value);
    if (converted != null) {
      return converted;
    }
    if (value instanceof Number num && Number.class.isAssignableFrom(boxed)) {
      if (boxed == Integer.class) {
        return num.intValue();
      } else if (boxed == Long.class) {
        return num.longValue();
      } else if (boxed == Short.class) {
        return num.shortValue();
      } else if (boxed == Byte.class) {
        return num.byteValue();
      } else if (boxed == Double.class) {
        return num.doubleValue();
      } else if (boxed == Float.class) {
        return num.floatValue();
      }
    }
    throw new CodecException(CodecException.doesNotFit(record.getName(), "stored "
        + describe(value) + " for its component '" + name + "' of type " + type.getName()));
  }

  /**
   * {@code value}, a collection or map read as another class (written before its class was kept,
   * or by Jackson, or an empty {@code EnumMap}, which names no constant of its enum), as the
   * collection class {@code type} a record component declares ({@code genericType} with its type
   * arguments); or null.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object asCollection(Class<?> type, Type genericType, Object value) {
    try {
      if (type == EnumSet.class && value instanceof Collection<?> c) {
        Class<? extends Enum> e = enumArgument(genericType, 0);
        if (e == null) {
          return null;
        }
        EnumSet made = EnumSet.noneOf(e);
        made.addAll(c);
        return made;
      }
      if (type == EnumMap.class && value instanceof Map<?, ?> m) {
        Class<? extends Enum> e = enumArgument(genericType, 0);
        if (e == null) {
          return null;
        }
        EnumMap made = new EnumMap(e);
        made.putAll(m);
        return made;
      }
      if (value instanceof Collection<?> c && Collection.class.isAssignableFrom(type)) {
        Object made = java.util.SortedSet.class.isAssignableFrom(type)
            && type.isAssignableFrom(java.util.TreeSet.class) ? new java.util.TreeSet<>()
            : REBUILDABLE.get(type) ? create(type) : null;
        if (made != null) {
          ((Collection) made).addAll(c);
        }
        return made;
      }
      if (value instanceof Map<?, ?> m && Map.class.isAssignableFrom(type)) {
        Object made = java.util.SortedMap.class.isAssignableFrom(type)
            && type.isAssignableFrom(java.util.TreeMap.class) ? new java.util.TreeMap<>()
            : REBUILDABLE.get(type) ? create(type) : null;
        if (made != null) {
          ((Map) made).putAll(m);
        }
        return made;
      }
    } catch (RuntimeException e) { // elements a sorted collection cannot order, say
      return null;
    }
    return null;
  }

  /** Type argument {@code i} of {@code type} if it is an enum class, else null. */
  @SuppressWarnings("rawtypes")
  private static Class<? extends Enum> enumArgument(Type type, int i) {
    if (type instanceof java.lang.reflect.ParameterizedType p
        && p.getActualTypeArguments().length > i
        && p.getActualTypeArguments()[i] instanceof Class<?> c && c.isEnum()) {
      return c.asSubclass(Enum.class);
    }
    return null;
  }

  private static Object create(Class<?> type) {
    try {
      return type.getConstructor().newInstance();
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  private static Class<?> boxed(Class<?> type) {
    if (!type.isPrimitive()) {
      return type;
    }
    return Array.get(Array.newInstance(type, 1), 0).getClass();
  }

  private static String describe(Object value) {
    return value == null ? "null" : "a " + value.getClass().getName();
  }

  private static String readString(DataInputStream in) throws IOException {
    int n = count(in);
    byte[] b = new byte[2 * n];
    in.readFully(b);
    char[] chars = new char[n];
    for (int i = 0; i < n; i++) {
      chars[i] = (char) (((b[2 * i] & 0xFF) << 8) | (b[2 * i + 1] & 0xFF));
    }
    return new String(chars);
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    byte[] b = new byte[count(in)];
    in.readFully(b);
    return b;
  }

  /** A length or count, checked against what is left so corrupt bytes cannot allocate much. */
  private static int count(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > in.available()) {
      throw new CodecException(
          "cannot deserialize a value of a dynamic type: corrupt (a count of " + n + ")");
    }
    return n;
  }

  private static int capacity(int n) {
    return Math.max(4, (int) (n / 0.75f) + 1);
  }

  /** The class written as {@code name}, from the context class loader or this library's. */
  private Class<?> classNamed(String name) {
    Class<?> c = classes.get(name);
    if (c != null) {
      return c;
    }
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    try {
      c = primitive(name);
      if (c == null) {
        c = Class.forName(name, false,
            context != null ? context : DynamicCodec.class.getClassLoader());
      }
    } catch (ClassNotFoundException e) {
      try {
        c = Class.forName(name, false, DynamicCodec.class.getClassLoader());
      } catch (ClassNotFoundException again) {
        throw new CodecException("cannot deserialize a stored " + name
            + ": no such class on the class path (renamed or removed?)", again);
      }
    }
    classes.putIfAbsent(name, c);
    return c;
  }

  private static Class<?> primitive(String name) {
    switch (name) {
      case "int":
        return int.class;
      case "long":
        return long.class;
      case "short":
        return short.class;
      case "byte":
        return byte.class;
      case "char":
        return char.class;
      case "boolean":
        return boolean.class;
      case "float":
        return float.class;
      case "double":
        return double.class;
      default:
        return null;
    }
  }

  /** A record class's components, accessors and canonical constructor, found once. */
  private static final class RecordShape {
    private static final ClassValue<RecordShape> SHAPES = new ClassValue<>() {
      @Override
      protected RecordShape computeValue(Class<?> type) {
        return new RecordShape(type);
      }
    };

    final String[] names;
    final Class<?>[] types;
    final Type[] genericTypes;
    final Method[] accessors;
    final Map<String, Integer> indexes = new HashMap<>();
    final Constructor<?> constructor;

    private RecordShape(Class<?> type) {
      RecordComponent[] components = type.getRecordComponents();
      names = new String[components.length];
      types = new Class<?>[components.length];
      genericTypes = new Type[components.length];
      accessors = new Method[components.length];
      for (int i = 0; i < components.length; i++) {
        names[i] = components[i].getName();
        types[i] = components[i].getType();
        genericTypes[i] = components[i].getGenericType();
        accessors[i] = components[i].getAccessor();
        indexes.put(names[i], i);
      }
      try {
        constructor = type.getDeclaredConstructor(types);
        constructor.setAccessible(true);
        for (Method m : accessors) {
          m.setAccessible(true);
        }
      } catch (NoSuchMethodException | RuntimeException e) {
        throw new CodecException("cannot serialize record " + type.getName()
            + " reflectively: " + e + " (give its handler concrete type arguments, so that its"
            + " generated or Jackson codec is used)", e);
      }
    }

    static RecordShape of(Class<?> type) {
      return SHAPES.get(type);
    }
  }
}
