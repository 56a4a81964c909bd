package io.cocoindex.runtime.codec.generated;

import com.fasterxml.jackson.core.JsonGenerator;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.codec.ValueWriter;
import io.cocoindex.runtime.codec.KeyEncoding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * {@link ValueWriter} over a Jackson generator, writing what the reflective codec writes for the
 * same value: UUIDs, fingerprints and keys as binary, enums and chars as strings.
 */
final class SmileValueWriter implements ValueWriter {
  private final JsonGenerator gen;

  SmileValueWriter(JsonGenerator gen) {
    this.gen = gen;
  }

  @FunctionalInterface
  private interface Write {
    void run() throws IOException;
  }

  private static void io(Write w) {
    try {
      w.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void beginObject() {
    io(gen::writeStartObject);
  }

  @Override
  public void field(String name) {
    io(() -> gen.writeFieldName(name));
  }

  @Override
  public void endObject() {
    io(gen::writeEndObject);
  }

  @Override
  public void beginArray() {
    io(gen::writeStartArray);
  }

  @Override
  public void endArray() {
    io(gen::writeEndArray);
  }

  @Override
  public void writeNull() {
    io(gen::writeNull);
  }

  @Override
  public void writeBoolean(boolean value) {
    io(() -> gen.writeBoolean(value));
  }

  @Override
  public void writeInt(int value) {
    io(() -> gen.writeNumber(value));
  }

  @Override
  public void writeLong(long value) {
    io(() -> gen.writeNumber(value));
  }

  @Override
  public void writeFloat(float value) {
    io(() -> gen.writeNumber(value));
  }

  @Override
  public void writeDouble(double value) {
    io(() -> gen.writeNumber(value));
  }

  @Override
  public void writeString(String value) {
    io(() -> gen.writeString(value));
  }

  @Override
  public void writeBytes(byte[] value) {
    if (value == null) {
      writeNull();
    } else {
      io(() -> gen.writeBinary(value));
    }
  }

  @Override
  public void writeUuid(UUID value) {
    if (value == null) {
      writeNull();
      return;
    }
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(value.getMostSignificantBits()).putLong(value.getLeastSignificantBits());
    writeBytes(b.array());
  }

  @Override
  public void writeFingerprint(Fingerprint value) {
    writeBytes(value == null ? null : value.bytes());
  }

  @Override
  public void writeStableKey(StableKey value) {
    writeBytes(value == null ? null : KeyEncoding.encode(value));
  }
}
