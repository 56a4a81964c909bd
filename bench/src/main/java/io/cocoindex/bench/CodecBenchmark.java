package io.cocoindex.bench;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.codec.JacksonCodecFactory;
import io.cocoindex.samples.sqlite.RowAction;
import io.cocoindex.samples.sqlite.SqlValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Workload 8: one encode plus one decode of the same record, through the codec the processor
 * generated (what {@code CodecRegistry.standard()} picks) or through Jackson databind (the
 * runtime's reflective fallback, same Smile format).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {

  /** The record: a rich declared value, a tracking record, the SQLite connector's row action. */
  @Param({"Document", "DocumentRecord", "RowAction"})
  public String record;

  /** generated (processor) or jackson (databind over Smile). */
  @Param({"generated", "jackson"})
  public String codec;

  private Codec<Object> impl;
  private Object value;

  @Setup
  public void setup() {
    Class<?> type = type(record);
    value = sample(record);
    impl = codecFor(codec, type);
  }

  @Benchmark
  public Object roundTrip() {
    return impl.decode(impl.encode(value));
  }

  static Class<?> type(String record) {
    switch (record) {
      case "Document":
        return Document.class;
      case "DocumentRecord":
        return DocumentRecord.class;
      case "RowAction":
        return RowAction.class;
      default:
        throw new IllegalArgumentException("unknown record " + record);
    }
  }

  static Object sample(String record) {
    switch (record) {
      case "Document":
        return Document.sample();
      case "DocumentRecord":
        return DocumentRecord.sample();
      case "RowAction":
        BenchRow r = BenchRow.of(4242, 1);
        return new RowAction("t", List.of("id", "name", "amount", "body"), List.of("id"),
            List.of(SqlValue.of(r.id()), SqlValue.of(r.name()), SqlValue.of(r.amount()),
                SqlValue.of(r.body())), false);
      default:
        throw new IllegalArgumentException("unknown record " + record);
    }
  }

  /**
   * Jackson databind over Smile with the runtime fallback's settings, serializing record
   * components only. The runtime's {@link JacksonCodecFactory} cannot round-trip {@link
   * SqlValue}: it writes {@code isNull()} as a property {@code "null"} and then rejects it as
   * unknown on decode.
   */
  static Codec<?> recordComponentsOnly(Class<?> type) {
    ObjectMapper mapper = JsonMapper.builder(new SmileFactory())
        .addModule(new Jdk8Module())
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .enable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
        .disable(MapperFeature.AUTO_DETECT_IS_GETTERS)
        .disable(MapperFeature.AUTO_DETECT_GETTERS)
        .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
        .build();
    ObjectWriter writer = mapper.writerFor(type);
    ObjectReader reader = mapper.readerFor(type);
    return new Codec<Object>() {
      @Override
      public byte[] encode(Object value) {
        try {
          return writer.writeValueAsBytes(value);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      @Override
      public Object decode(byte[] bytes) {
        try {
          return reader.readValue(bytes);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };
  }

  /**
   * The codec of {@code type}: {@code codec} "generated" (what the standard registry picks) or
   * "jackson" (databind over Smile).
   *
   * @throws IllegalStateException when "generated" is asked and the registry would not pick a
   *     generated codec (the benchmark would measure the wrong thing)
   * @throws IllegalArgumentException for any other {@code codec}
   */
  @SuppressWarnings("unchecked")
  static Codec<Object> codecFor(String codec, Class<?> type) {
    CodecRegistry registry = CodecRegistry.standard();
    if (codec.equals("generated")) {
      Codec<Object> c = registry.codecFor(type);
      if (!c.getClass().getName().contains("Generated")) {
        throw new IllegalStateException("no generated codec for " + type.getName() + ": got "
            + c.getClass().getName());
      }
      return c;
    }
    if (codec.equals("jackson")) {
      if (type == RowAction.class) {
        return (Codec<Object>) recordComponentsOnly(type);
      }
      return (Codec<Object>) new JacksonCodecFactory().create(type, registry);
    }
    throw new IllegalArgumentException("unknown codec " + codec);
  }
}
