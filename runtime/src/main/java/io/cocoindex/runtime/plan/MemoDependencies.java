package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.TrackedState;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a memoized component declared on, as stored in its component record: per provider, the
 * provider name, the container whose invalidation would invalidate the memo (or none for root
 * providers), that container's child generation and epoch at the time, and the state count.
 */
public final class MemoDependencies {
  private MemoDependencies() {}

  /**
   * One provider a component declared on.
   *
   * @param provider the provider name (for statistics)
   * @param container the encoded container path, or an empty array for root providers
   * @param generation the container's child generation then
   * @param epoch the container's child epoch then
   * @param states how many states the component declared on it
   */
  public record Dependency(
      String provider, byte[] container, long generation, long epoch, long states) {}

  public static byte[] encode(List<Dependency> deps) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(deps.size());
      for (Dependency d : deps) {
        out.writeUTF(d.provider());
        out.writeInt(d.container().length);
        out.write(d.container());
        out.writeLong(d.generation());
        out.writeLong(d.epoch());
        out.writeLong(d.states());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  public static List<Dependency> decode(byte[] encoded) {
    List<Dependency> deps = new ArrayList<>();
    if (encoded == null) {
      return deps;
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        String provider = in.readUTF();
        byte[] container = in.readNBytes(in.readInt());
        deps.add(new Dependency(provider, container, in.readLong(), in.readLong(),
            in.readLong()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("corrupt memo dependencies", e);
    }
    return deps;
  }

  /** Whether no container a memoized component declared on was invalidated since. */
  public static boolean stillValid(List<Dependency> deps, Run run) {
    for (Dependency d : deps) {
      if (d.container().length == 0) {
        continue;
      }
      TargetPath container = run.memoContainer(d.container());
      long gen;
      long epoch;
      Provider<?> resolved = run.providers.lookup(container);
      if (resolved != null) {
        gen = resolved.generation();
        epoch = resolved.epoch();
      } else {
        Optional<TrackedState> row = run.store.get(run.app, d.container());
        if (row.isEmpty()) {
          return false;
        }
        gen = row.get().childGeneration();
        epoch = row.get().childEpoch();
      }
      if (gen != d.generation() || epoch != d.epoch()) {
        return false;
      }
    }
    return true;
  }
}
