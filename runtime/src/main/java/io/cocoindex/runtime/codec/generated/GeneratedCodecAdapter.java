package io.cocoindex.runtime.codec.generated;

import io.cocoindex.codec.CodecFormatException;
import io.cocoindex.codec.GeneratedCodec;
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
    } catch (CodecException e) {
      throw e;
    } catch (RuntimeException e) {
      // A CodecFormatException already names the record and field; others get the type here.
      throw new CodecException(
          e instanceof CodecFormatException && e.getMessage().startsWith("stored ")
              ? e.getMessage()
              : "cannot deserialize " + codec.type().getName() + ": " + e.getMessage(),
          e);
    }
  }
}
