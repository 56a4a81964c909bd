package io.cocoindex.runtime.codec.generated;

import io.cocoindex.codec.CodecFormatException;
import io.cocoindex.codec.GeneratedCodec;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecException;

/**
 * A {@link Codec} running a {@link GeneratedCodec} over Smile, the reflective codec's format,
 * with the project's own writer and reader (no Jackson generator or parser per value).
 */
final class GeneratedCodecAdapter<T> implements Codec<T> {
  private final GeneratedCodec<T> codec;

  GeneratedCodecAdapter(GeneratedCodec<T> codec) {
    this.codec = codec;
  }

  @Override
  public byte[] encode(T value) {
    SmileValueWriter out = SmileValueWriter.acquire();
    try {
      codec.write(out, value);
    } catch (RuntimeException e) {
      out.release();
      throw new CodecException(
          "cannot serialize a value of " + codec.type().getName() + ": " + e.getMessage(), e);
    }
    return out.finish();
  }

  @Override
  public T decode(byte[] bytes) {
    try {
      SmileValueReader reader = new SmileValueReader(bytes);
      T value = codec.read(reader);
      if (!reader.atEnd()) {
        throw new CodecException(
            "cannot deserialize " + codec.type().getName() + ": trailing data after the value");
      }
      return value;
    } catch (RuntimeException e) {
      throw decodeFailure(e);
    }
  }

  /**
   * Copies through an in-memory {@link ValueTape} instead of Smile bytes. A codec whose reading
   * does not match its writing on the tape (a format error) is copied through the bytes, which
   * the Smile reader reads more leniently, so the result is always that of {@code
   * decode(encode(value))}.
   */
  @Override
  public T copy(T value) {
    ValueTape tape = ValueTape.acquire();
    try {
      try {
        codec.write(tape, value);
      } catch (RuntimeException e) {
        throw new CodecException(
            "cannot serialize a value of " + codec.type().getName() + ": " + e.getMessage(), e);
      }
      ValueReader reader = tape.reader();
      T copied;
      try {
        copied = codec.read(reader);
      } catch (CodecFormatException e) {
        return decode(encode(value));
      } catch (RuntimeException e) {
        throw decodeFailure(e);
      }
      return ValueTape.atEnd(reader) ? copied : decode(encode(value));
    } finally {
      tape.release();
    }
  }

  private RuntimeException decodeFailure(RuntimeException e) {
    if (e instanceof CodecException) {
      return e;
    }
    // A CodecFormatException already names the record and field; others get the type here.
    return new CodecException(
        e instanceof CodecFormatException && e.getMessage().startsWith("stored ")
            ? e.getMessage()
            : "cannot deserialize " + codec.type().getName() + ": " + e.getMessage(),
        e);
  }
}
