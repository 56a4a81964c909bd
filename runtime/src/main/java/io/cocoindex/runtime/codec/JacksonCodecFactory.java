package io.cocoindex.runtime.codec;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import java.io.IOException;
import java.lang.reflect.Type;

/**
 * The built-in codecs: Jackson databind over Smile (compact binary JSON). Records decode by
 * component name, so a component added later reads as its default ({@code null}, 0, false);
 * a stored field the type no longer has fails with an error naming the type and the field.
 */
public final class JacksonCodecFactory implements CodecFactory {

  /**
   * Made when the first type needs it: building it loads several hundred Jackson classes (about a
   * fifth of a second in a fresh JVM), and an app whose types all have generated codecs never
   * does.
   */
  private volatile ObjectMapper mapper;

  /** The factory; its Jackson mapper is made at the first codec asked for. */
  public JacksonCodecFactory() {}

  @Override
  public Codec<?> create(Type type, CodecRegistry registry) {
    ObjectMapper m = mapper();
    JavaType javaType = m.getTypeFactory().constructType(type);
    return new JacksonCodec<>(javaType, m.writerFor(javaType), m.readerFor(javaType));
  }

  private ObjectMapper mapper() {
    ObjectMapper m = mapper;
    if (m == null) {
      synchronized (this) {
        m = mapper;
        if (m == null) {
          m = Mappers.smile();
          mapper = m;
        }
      }
    }
    return m;
  }

  /** Builds the mapper, apart from the factory so that making a factory loads no Jackson class. */
  private static final class Mappers {
    static ObjectMapper smile() {
      // Declared values may be large (a file's text): no cap below what a byte[] can hold.
      SmileFactory factory = SmileFactory.builder().streamReadConstraints(
          com.fasterxml.jackson.core.StreamReadConstraints.builder()
              .maxStringLength(Integer.MAX_VALUE).build()).build();
      SimpleModule module = new SimpleModule("cocoindex");
      module.addSerializer(Fingerprint.class, new FingerprintSerializer());
      module.addDeserializer(Fingerprint.class, new FingerprintDeserializer());
      module.addSerializer(StableKey.class, new StableKeySerializer());
      module.addDeserializer(StableKey.class, new StableKeyDeserializer());
      return JsonMapper.builder(factory)
          .addModule(new Jdk8Module())
          .addModule(module)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .enable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
          // State is the record's components (its fields), never bean-style helper methods
          // such as isEmpty() or getUpper(), which would be written and then fail to read.
          .visibility(PropertyAccessor.ALL, JsonAutoDetect.Visibility.NONE)
          .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
          .visibility(PropertyAccessor.CREATOR, JsonAutoDetect.Visibility.ANY)
          .build();
    }
  }

  private static final class JacksonCodec<T> implements Codec<T> {
    private final JavaType type;
    private final ObjectWriter writer;
    private final ObjectReader reader;
    /**
     * A value this codec wrote was read back: its type can be constructed from its bytes. Until
     * then each encode reads its bytes back once ({@link #checkReadsBack}).
     */
    private volatile boolean readsBack;

    JacksonCodec(JavaType type, ObjectWriter writer, ObjectReader reader) {
      this.type = type;
      this.writer = writer;
      this.reader = reader;
    }

    @Override
    public byte[] encode(T value) {
      byte[] bytes;
      try {
        bytes = writer.writeValueAsBytes(value);
      } catch (IOException e) {
        throw new CodecException(
            "cannot serialize a value of " + describe(value) + ": " + e.getMessage(), e);
      }
      if (!readsBack && value != null) {
        checkReadsBack(value, bytes);
      }
      return bytes;
    }

    /**
     * Reads {@code bytes} back, once per codec: a class Jackson writes but cannot construct (no
     * record, no constructor without arguments) would otherwise be stored, and fail only when a
     * later run reads it, with advice about a component that changed type.
     */
    private void checkReadsBack(T value, byte[] bytes) {
      try {
        reader.readValue(bytes);
      } catch (IOException e) {
        String problem = e instanceof com.fasterxml.jackson.core.JsonProcessingException p
            ? p.getOriginalMessage() : e.getMessage();
        throw new CodecException("a value of " + describe(value) + " can be written but not read"
            + " back (" + problem + "): a type without a generated codec is read back through its"
            + " record components, or a constructor without arguments and its fields; declare it"
            + " as a record (annotated @TrackingRecord, @TargetValue or @ActionValue for a"
            + " generated codec)", e);
      }
      readsBack = true;
    }

    @Override
    public T decode(byte[] bytes) {
      try {
        return reader.readValue(bytes);
      } catch (UnrecognizedPropertyException e) {
        throw new CodecException(CodecException.removedField(type.getRawClass().getName(),
            type.getRawClass().isRecord() ? "record" : "class", e.getPropertyName()), e);
      } catch (IOException e) {
        throw new CodecException(CodecException.doesNotFit(type.toCanonical(), e.getMessage()), e);
      }
    }

    private String describe(Object value) {
      return value == null ? type.getTypeName() : value.getClass().getName();
    }
  }

  private static final class FingerprintSerializer extends JsonSerializer<Fingerprint> {
    @Override
    public void serialize(Fingerprint value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeBinary(value.bytes());
    }
  }

  private static final class FingerprintDeserializer extends JsonDeserializer<Fingerprint> {
    @Override
    public Fingerprint deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() == JsonToken.VALUE_STRING && p.getText().startsWith("#")) {
        return Fingerprint.parse(p.getText());
      }
      return new Fingerprint(p.getBinaryValue());
    }
  }

  private static final class StableKeySerializer extends JsonSerializer<StableKey> {
    @Override
    public void serialize(StableKey value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeBinary(KeyEncoding.encode(value));
    }
  }

  private static final class StableKeyDeserializer extends JsonDeserializer<StableKey> {
    @Override
    public StableKey deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      return KeyEncoding.decode(p.getBinaryValue());
    }
  }
}
