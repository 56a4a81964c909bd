package io.cocoindex.runtime.plan;

import io.cocoindex.runtime.state.ByteKey;
import io.cocoindex.runtime.state.TrackedState;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
      String provider, byte[] container, long generation, long epoch, long states) {

    /**
     * A container from outside the memoized subtree that the memo was last recorded without:
     * it was not declared when the memo missed for it, and the memo holds only while it stays
     * so (a body that declares into it when it exists would otherwise be skipped when it comes
     * back).
     */
    static Dependency absent(String provider, byte[] container) {
      return new Dependency(provider, container, ABSENT, ABSENT, 0);
    }

    /**
     * Whether this is an {@link #absent} container.
     *
     * @return true if the memo holds only while the container stays undeclared
     */
    public boolean isAbsent() {
      return generation == ABSENT && epoch == ABSENT;
    }
  }

  /** The generation and epoch of an {@link Dependency#absent} container. */
  static final long ABSENT = -1;

  /**
   * The layout {@link java.io.DataOutputStream} writes, which {@link #decode} reads: the count as
   * an int, then per dependency its provider name as {@code writeUTF} does (a two-byte length, then
   * modified UTF-8), its container's length and bytes, its generation, epoch and state count.
   * Written into one array of the exact size: through the streams, its many small synchronized
   * writes were a percent of a warm rerun (every component's record is encoded on every run).
   *
   * @param deps the dependencies, in the order to store them
   * @return their encoding
   * @throws IllegalArgumentException if a provider name takes more than 65,535 bytes encoded
   */
  public static byte[] encode(List<Dependency> deps) {
    int size = Integer.BYTES;
    for (Dependency d : deps) {
      size += 2 + modifiedUtf8Length(d.provider()) + Integer.BYTES + d.container().length
          + 3 * Long.BYTES;
    }
    ByteBuffer out = ByteBuffer.allocate(size); // big-endian, as DataOutputStream
    out.putInt(deps.size());
    for (Dependency d : deps) {
      putModifiedUtf8(out, d.provider());
      out.putInt(d.container().length);
      out.put(d.container());
      out.putLong(d.generation());
      out.putLong(d.epoch());
      out.putLong(d.states());
    }
    return out.array();
  }

  /** The length of {@code s} in modified UTF-8: NUL and chars to U+07FF in two bytes. */
  private static int modifiedUtf8Length(String s) {
    int length = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      length += c >= 0x0001 && c <= 0x007F ? 1 : c <= 0x07FF ? 2 : 3;
    }
    if (length > 0xFFFF) {
      throw new IllegalArgumentException("provider name of " + s.length()
          + " chars is too long to record (more than 65,535 bytes encoded)");
    }
    return length;
  }

  private static void putModifiedUtf8(ByteBuffer out, String s) {
    out.putShort((short) modifiedUtf8Length(s));
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x0001 && c <= 0x007F) {
        out.put((byte) c);
      } else if (c <= 0x07FF) {
        out.put((byte) (0xC0 | (c >> 6))).put((byte) (0x80 | (c & 0x3F)));
      } else {
        out.put((byte) (0xE0 | (c >> 12))).put((byte) (0x80 | ((c >> 6) & 0x3F)))
            .put((byte) (0x80 | (c & 0x3F)));
      }
    }
  }

  /**
   * The dependencies {@link #encode} wrote.
   *
   * @param encoded their encoding as stored, or null for a record without any
   * @return the dependencies in stored order; a new list, empty for null
   * @throws UncheckedIOException if {@code encoded} is truncated or corrupt
   */
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

  /**
   * {@code a} and {@code b} as one list: a dependency on the same provider of the same container
   * at the same generation and epoch appears once, with the states of both counted.
   *
   * @param a the first dependencies
   * @param b the dependencies to add to them
   * @return the merged list, or {@code a} itself when {@code b} is empty
   */
  public static List<Dependency> merge(List<Dependency> a, List<Dependency> b) {
    if (b.isEmpty()) {
      return a;
    }
    Collector all = new Collector();
    all.add(a);
    all.add(b);
    return all.list();
  }

  /**
   * Gathers what the components of a subtree declared on, as they finish (on several threads),
   * merged as {@link #merge} does.
   */
  public static final class Collector {
    private record Key(String provider, ByteKey container, long generation, long epoch) {}

    private final Map<Key, long[]> states = new LinkedHashMap<>();

    /** A collector that has gathered nothing yet. */
    public Collector() {}

    /**
     * Adds what one component declared on.
     *
     * @param deps its dependencies, merged into those gathered
     */
    public synchronized void add(List<Dependency> deps) {
      for (Dependency d : deps) {
        states.computeIfAbsent(
            new Key(d.provider(), ByteKey.of(d.container()), d.generation(), d.epoch()),
            k -> new long[1])[0] += d.states();
      }
    }

    /**
     * The dependencies gathered; an {@link Dependency#absent} container that the subtree did
     * declare on after all (declared in the run after its memo was checked) is left out.
     *
     * @return a new list, in the order the dependencies were first added
     */
    public synchronized List<Dependency> list() {
      List<Dependency> out = new ArrayList<>(states.size());
      Set<ByteKey> declaredOn = null;
      for (Map.Entry<Key, long[]> e : states.entrySet()) {
        Key k = e.getKey();
        if (k.generation() == ABSENT && k.epoch() == ABSENT) {
          if (declaredOn == null) {
            declaredOn = new HashSet<>();
            for (Key other : states.keySet()) {
              if (other.generation() != ABSENT || other.epoch() != ABSENT) {
                declaredOn.add(other.container());
              }
            }
          }
          if (declaredOn.contains(k.container())) {
            continue;
          }
        }
        out.add(new Dependency(
            k.provider(), k.container().bytes(), k.generation(), k.epoch(), e.getValue()[0]));
      }
      return out;
    }
  }

  /**
   * Checks the memo of {@code component} against its dependencies: null when every container
   * the component (or a descendant) declared on is still there as it was, not invalidated since
   * and, when declared outside the component's subtree, declared again in this run before the
   * memo is checked; otherwise the containers the memo that replaces it is to be recorded
   * without ({@link Dependency#absent}: those from outside the subtree that are not declared
   * now, and those it was recorded without that still are not).
   *
   * <p>The body of a memoized component can only declare into containers resolved when it runs
   * (its parent mounts them first), so a container from outside that is not resolved now is one
   * the body would no longer declare into: renamed or removed (its rows would otherwise be
   * carried forward under a container the run drops, and the new one left empty for a run). A
   * container the subtree itself declares (a partition it mounts) is resolved only once its body
   * runs: its tracking decides.
   *
   * @param deps the dependencies stored with the memo
   * @param run the run checking the memo
   * @param component the memoized component's path
   * @return null when the memo holds; otherwise the absent containers to record the new memo
   *     with (possibly none)
   */
  public static List<Dependency> missedFor(List<Dependency> deps, Run run, TargetPath component) {
    boolean holds = true;
    List<Dependency> absent = new ArrayList<>();
    for (Dependency d : deps) {
      if (d.container().length == 0) {
        continue;
      }
      TargetPath container = run.memoContainer(d.container());
      Provider<?> resolved = run.providers.lookup(container);
      if (d.isAbsent()) {
        if (resolved != null) {
          holds = false; // declared again
        } else {
          absent.add(d);
        }
        continue;
      }
      if (resolved != null) {
        holds &= resolved.generation() == d.generation() && resolved.epoch() == d.epoch();
        continue;
      }
      Optional<TrackedState> row = run.store.get(run.app, d.container());
      if (run.providers.unresolved(container) == null
          && (row.isEmpty() || !TargetPath.decode(row.get().owner()).startsWith(component))) {
        holds = false; // declared outside the subtree, and not (yet) in this run
        absent.add(Dependency.absent(d.provider(), d.container()));
        continue;
      }
      holds &= row.isPresent() && row.get().childGeneration() == d.generation()
          && row.get().childEpoch() == d.epoch();
    }
    return holds ? null : absent;
  }
}
