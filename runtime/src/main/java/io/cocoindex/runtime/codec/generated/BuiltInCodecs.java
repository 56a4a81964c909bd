package io.cocoindex.runtime.codec.generated;

import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.codec.GeneratedCodec;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.codec.ValueWriter;

/**
 * Codecs of the API's own value types, written like the generated ones: a {@link Fingerprint}
 * is the usual tracking record, read and written for every target state, so it must not go
 * through databind. The bytes are what the reflective codec writes (a bare binary value).
 */
final class BuiltInCodecs {
  private BuiltInCodecs() {}

  /** The built-in codec of {@code type}, or null. */
  static GeneratedCodec<?> forType(Class<?> type) {
    if (type == Fingerprint.class) {
      return FINGERPRINT;
    }
    if (type == StableKey.class) {
      return STABLE_KEY;
    }
    return null;
  }

  private static final GeneratedCodec<Fingerprint> FINGERPRINT = new GeneratedCodec<>() {
    @Override
    public Class<Fingerprint> type() {
      return Fingerprint.class;
    }

    @Override
    public void write(ValueWriter out, Fingerprint value) {
      out.writeFingerprint(value);
    }

    @Override
    public Fingerprint read(ValueReader in) {
      return in.readFingerprint();
    }
  };

  private static final GeneratedCodec<StableKey> STABLE_KEY = new GeneratedCodec<>() {
    @Override
    public Class<StableKey> type() {
      return StableKey.class;
    }

    @Override
    public void write(ValueWriter out, StableKey value) {
      out.writeStableKey(value);
    }

    @Override
    public StableKey read(ValueReader in) {
      return in.readStableKey();
    }
  };
}
