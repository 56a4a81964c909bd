package io.cocoindex.runtime.codec.generated;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.codec.CodecFormatException;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.runtime.codec.KeyEncoding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * {@link ValueReader} over a Jackson parser. The parser's current token is always the first
 * token of the next value (or the end of the enclosing object or array). Reads what the
 * reflective codec writes, and is lenient where it is: numbers convert between kinds, UUIDs and
 * fingerprints may be text.
 */
final class SmileValueReader implements ValueReader {
  private final JsonParser parser;

  SmileValueReader(JsonParser parser) {
    this.parser = parser;
    advance();
  }

  @FunctionalInterface
  private interface Read<T> {
    T run() throws IOException;
  }

  private static <T> T io(Read<T> r) {
    try {
      return r.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private JsonToken current() {
    return parser.currentToken();
  }

  private void advance() {
    io(parser::nextToken);
  }

  /** Whether the whole input was read. */
  boolean atEnd() {
    return current() == null;
  }

  private CodecFormatException mismatch(String expected) {
    String at = parser.getParsingContext().pathAsPointer().toString();
    return new CodecFormatException(
        "expected "
            + expected
            + " at "
            + (at.isEmpty() ? "the top level" : at)
            + ", found "
            + found());
  }

  private String found() {
    JsonToken t = current();
    if (t == null) {
      return "the end of the input";
    }
    switch (t) {
      case VALUE_STRING:
        return "a string";
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        return "a number";
      case VALUE_TRUE:
      case VALUE_FALSE:
        return "a boolean";
      case VALUE_NULL:
        return "null";
      case VALUE_EMBEDDED_OBJECT:
        return "binary data";
      case START_OBJECT:
        return "an object";
      case START_ARRAY:
        return "an array";
      case FIELD_NAME:
        return "the field '" + io(parser::currentName) + "'";
      default:
        return "the end of an " + (t == JsonToken.END_OBJECT ? "object" : "array");
    }
  }

  private void expect(JsonToken token, String expected) {
    if (current() != token) {
      throw mismatch(expected);
    }
  }

  @Override
  public boolean readNull() {
    if (current() == JsonToken.VALUE_NULL) {
      advance();
      return true;
    }
    return false;
  }

  @Override
  public void beginObject() {
    expect(JsonToken.START_OBJECT, "an object");
    advance();
  }

  @Override
  public String nextField() {
    if (current() == JsonToken.END_OBJECT) {
      advance();
      return null;
    }
    expect(JsonToken.FIELD_NAME, "a field name");
    String name = io(parser::currentName);
    advance();
    return name;
  }

  @Override
  public void beginArray() {
    expect(JsonToken.START_ARRAY, "an array");
    advance();
  }

  @Override
  public boolean nextElement() {
    if (current() == JsonToken.END_ARRAY) {
      advance();
      return false;
    }
    return true;
  }

  @Override
  public void skipValue() {
    io(parser::skipChildren);
    advance();
  }

  @Override
  public boolean readBoolean() {
    if (readNull()) {
      return false;
    }
    if (current() != JsonToken.VALUE_TRUE && current() != JsonToken.VALUE_FALSE) {
      throw mismatch("a boolean");
    }
    boolean v = current() == JsonToken.VALUE_TRUE;
    advance();
    return v;
  }

  private Number number() {
    if (readNull()) {
      return 0;
    }
    if (!current().isNumeric()) {
      throw mismatch("a number");
    }
    Number n = io(parser::getNumberValue);
    advance();
    return n;
  }

  @Override
  public int readInt() {
    return number().intValue();
  }

  @Override
  public long readLong() {
    return number().longValue();
  }

  @Override
  public float readFloat() {
    return number().floatValue();
  }

  @Override
  public double readDouble() {
    return number().doubleValue();
  }

  @Override
  public String readString() {
    if (readNull()) {
      return null;
    }
    expect(JsonToken.VALUE_STRING, "a string");
    String s = io(parser::getText);
    advance();
    return s;
  }

  @Override
  public byte[] readBytes() {
    if (readNull()) {
      return null;
    }
    if (current() != JsonToken.VALUE_EMBEDDED_OBJECT && current() != JsonToken.VALUE_STRING) {
      throw mismatch("binary data");
    }
    byte[] b = io(parser::getBinaryValue);
    advance();
    return b;
  }

  @Override
  public UUID readUuid() {
    if (current() == JsonToken.VALUE_STRING) {
      return UUID.fromString(readString());
    }
    byte[] b = readBytes();
    if (b == null) {
      return null;
    }
    if (b.length != 16) {
      throw new CodecFormatException("a stored UUID has " + b.length + " bytes, not 16");
    }
    ByteBuffer buf = ByteBuffer.wrap(b);
    return new UUID(buf.getLong(), buf.getLong());
  }

  @Override
  public Fingerprint readFingerprint() {
    if (current() == JsonToken.VALUE_STRING) {
      String text = readString();
      if (text.startsWith("#")) {
        return Fingerprint.parse(text);
      }
      return new Fingerprint(java.util.Base64.getDecoder().decode(text));
    }
    byte[] b = readBytes();
    return b == null ? null : new Fingerprint(b);
  }

  @Override
  public StableKey readStableKey() {
    byte[] b = readBytes();
    return b == null ? null : KeyEncoding.decode(b);
  }
}
