package io.cocoindex.runtime.component;

import io.cocoindex.Fingerprint;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * A component's memoized-function results: those stored from the last run, and those used in
 * this one (only used ones are kept, so results of old inputs do not pile up).
 */
final class MemoValues {
  private final Map<Fingerprint, byte[]> stored;
  private final Map<Fingerprint, byte[]> used = new TreeMap<>();

  private MemoValues(Map<Fingerprint, byte[]> stored) {
    this.stored = stored;
  }

  static MemoValues decode(byte[] encoded) {
    Map<Fingerprint, byte[]> stored = new TreeMap<>();
    if (encoded != null) {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
          Fingerprint key = new Fingerprint(in.readNBytes(Fingerprint.LENGTH));
          stored.put(key, in.readNBytes(in.readInt()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("corrupt memoized values", e);
      }
    }
    return new MemoValues(stored);
  }

  synchronized byte[] lookup(Fingerprint key) {
    byte[] v = used.get(key);
    if (v == null) {
      v = stored.get(key);
      if (v != null) {
        used.put(key, v);
      }
    }
    return v;
  }

  synchronized void put(Fingerprint key, byte[] value) {
    used.put(key, value);
  }

  synchronized byte[] encodeUsed() {
    if (used.isEmpty()) {
      return null;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(used.size());
      for (Map.Entry<Fingerprint, byte[]> e : used.entrySet()) {
        out.write(e.getKey().bytes());
        out.writeInt(e.getValue().length);
        out.write(e.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
