package io.cocoindex.codec;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.util.UUID;

/**
 * The streaming output of {@link GeneratedCodec}s: a JSON-like tree of objects, arrays and
 * scalars. The runtime implements it over a binary encoding. Methods taking a reference write a
 * null for {@code null}.
 */
public interface ValueWriter {
  void beginObject();

  /** The name of the next field of the current object; its value is written next. */
  void field(String name);

  /** Field {@code index} of {@code names} is the next field; its value is written next. */
  default void field(FieldNames names, int index) {
    field(names.name(index));
  }

  void endObject();

  void beginArray();

  void endArray();

  void writeNull();

  void writeBoolean(boolean value);

  void writeInt(int value);

  void writeLong(long value);

  void writeFloat(float value);

  void writeDouble(double value);

  void writeString(String value);

  void writeBytes(byte[] value);

  void writeUuid(UUID value);

  void writeFingerprint(Fingerprint value);

  void writeStableKey(StableKey value);
}
