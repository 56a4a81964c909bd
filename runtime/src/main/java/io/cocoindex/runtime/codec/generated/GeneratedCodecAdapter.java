package io.cocoindex.runtime.codec.generated;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import io.cocoindex.codec.GeneratedCodec;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** A {@link Codec} running a {@link GeneratedCodec} over Smile, the reflective codec's format. */
final class GeneratedCodecAdapter<T> implements Codec<T> {
  private final GeneratedCodec<T> codec;
  private final JsonFactory factory;

  GeneratedCodecAdapter(GeneratedCodec<T> codec, JsonFactory factory) {
    this.codec = codec;
    this.factory = factory;
  }


  @Override
  public byte[] encode(T value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    try (JsonGenerator gen = factory.createGenerator(out)) {
      codec.write(new SmileValueWriter(gen), value);
    } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
      throw new CodecException(
          "cannot serialize a value of " + codec.type().getName() + ": " + e.getMessage(), e);
    }
    return out.toByteArray();
  }

  @Override
  public T decode(byte[] bytes) {
    try (JsonParser parser = factory.createParser(bytes)) {
      SmileValueReader reader = new SmileValueReader(parser);
      T value = codec.read(reader);
      if (!reader.atEnd()) {
        throw new CodecException(
            "cannot deserialize " + codec.type().getName() + ": trailing data after the value");
      }
      return value;
    } catch (CodecException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // A CodecFormatException already names the record and field; others get the type here.
      throw new CodecException(
          e instanceof io.cocoindex.codec.CodecFormatException
                  && e.getMessage().startsWith("stored ")
              ? e.getMessage()
              : "cannot deserialize " + codec.type().getName() + ": " + e.getMessage(),
          e);
    }
  }
}
