package io.cocoindex.runtime;

import io.cocoindex.ContextKey;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Where apps keep their tracking (the state store) and what they can reach (context values such
 * as connections, by {@link ContextKey}).
 *
 * <pre>{@code
 * Environment env = Environment.builder()
 *     .dbPath(Path.of(".cocoindex"))              // embedded SQLite store in this directory
 *     .provide(MY_DB, dataSource)                  // ctx.get(MY_DB) in components
 *     .build();
 * }</pre>
 */
public final class Environment {
  private final Supplier<StateStore> storeFactory;
  private final boolean ownsStore;
  private final Map<ContextKey<?>, Object> context;
  private final CodecRegistry codecs;
  private final int parallelism;
  private final java.util.List<ActionListener> listeners;
  private final Duration lockWait;
  private StateStore store;
  private int users;

  private Environment(Builder b) {
    this.context = Map.copyOf(b.context);
    this.codecs = b.codecs != null ? b.codecs : CodecRegistry.standard();
    this.parallelism = b.parallelism;
    this.listeners = java.util.List.copyOf(b.listeners);
    this.lockWait = b.lockWait;
    if (b.store != null) {
      StateStore given = b.store;
      this.storeFactory = () -> given;
      this.ownsStore = false;
    } else {
      Path dir = b.dbPath;
      SqliteStateStore.Durability durability = b.durability;
      this.storeFactory = () -> SqliteStateStore.open(dir, durability);
      this.ownsStore = true;
    }
  }

  /**
   * A builder; give it a store ({@code dbPath} or {@code stateStore}) before {@code build}.
   *
   * @return a new builder with the defaults: no context value, the cores as parallelism, no
   *     lock wait
   */
  public static Builder builder() {
    return new Builder();
  }

  Map<ContextKey<?>, Object> context() {
    return context;
  }

  CodecRegistry codecs() {
    return codecs;
  }

  /** How long an update waits for another process's to end; zero: it does not wait. */
  Duration lockWait() {
    return lockWait;
  }

  int parallelism() {
    return parallelism;
  }

  java.util.List<ActionListener> listeners() {
    return listeners;
  }

  /** Opens the store on first use; each App holds it until closed. */
  synchronized StateStore acquireStore() {
    if (store == null) {
      store = storeFactory.get();
    }
    users++;
    return store;
  }

  synchronized void releaseStore() {
    if (--users == 0 && ownsStore && store != null) {
      store.close();
      store = null;
    }
  }

  /** Builds an {@link Environment}. */
  public static final class Builder {
    private Path dbPath;
    private StateStore store;
    private SqliteStateStore.Durability durability = SqliteStateStore.Durability.FULL;
    private final Map<ContextKey<?>, Object> context = new LinkedHashMap<>();
    private CodecRegistry codecs;
    private int parallelism = Math.max(2, Runtime.getRuntime().availableProcessors());
    private final java.util.List<ActionListener> listeners = new java.util.ArrayList<>();
    private Duration lockWait = Duration.ZERO;

    private Builder() {}

    /**
     * The directory of the embedded state store (created if missing).
     *
     * @param dbPath the directory, kept across runs: the app's tracking lives there
     * @return this builder
     */
    public Builder dbPath(Path dbPath) {
      this.dbPath = Objects.requireNonNull(dbPath, "dbPath");
      return this;
    }

    /**
     * A state store to use instead of the embedded one (e.g. a shared PostgreSQL store). The
     * caller keeps it: closing an app does not close it; close it after the apps that use it.
     *
     * @param store the opened store, such as {@code PostgresStateStore.open(...)}
     * @return this builder
     */
    public Builder stateStore(StateStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Durability of the embedded store's commits; FULL (fsync per commit) by default.
     *
     * @param durability how the embedded store syncs its commits; ignored with {@link #stateStore}
     * @return this builder
     */
    public Builder durability(SqliteStateStore.Durability durability) {
      this.durability = Objects.requireNonNull(durability, "durability");
      return this;
    }

    /**
     * Provides {@code value} to components as {@code ctx.get(key)}.
     *
     * @param key the key components read it by
     * @param value the value, an instance of the key's type
     * @param <T> the value type
     * @return this builder
     * @throws IllegalArgumentException when {@code value} is null or not of the key's type
     */
    public <T> Builder provide(ContextKey<T> key, T value) {
      Objects.requireNonNull(key, "key");
      if (!key.type().isInstance(value)) {
        throw new IllegalArgumentException(
            "value for " + key + " is not a " + key.type().getName() + ": " + value);
      }
      context.put(key, value);
      return this;
    }

    /**
     * The codec registry (generated codecs are found without this).
     *
     * @param codecs the registry to serialize declared values, tracking records and actions with
     * @return this builder
     */
    public Builder codecs(CodecRegistry codecs) {
      this.codecs = Objects.requireNonNull(codecs, "codecs");
      return this;
    }

    /**
     * How many component bodies run at once; the number of cores, at least 2, by default.
     *
     * @param parallelism the size of the component pool, at least 1
     * @return this builder
     * @throws IllegalArgumentException when {@code parallelism} is below 1
     */
    public Builder parallelism(int parallelism) {
      if (parallelism < 1) {
        throw new IllegalArgumentException("parallelism must be at least 1");
      }
      this.parallelism = parallelism;
      return this;
    }

    /**
     * How long an update, preview or drop waits for one of the same app running in another
     * process (or another {@code App} of this JVM) to end before it gives up with a {@link
     * io.cocoindex.runtime.state.StoreLockedException}; it does not wait by default. For runs
     * started on a schedule that may overlap: the later one runs once the earlier is done.
     *
     * @param wait how long to wait for the update lock; {@link Duration#ZERO} not to wait
     * @return this builder
     * @throws IllegalArgumentException when {@code wait} is negative
     */
    public Builder waitForLock(Duration wait) {
      Objects.requireNonNull(wait, "wait");
      if (wait.isNegative()) {
        throw new IllegalArgumentException("the wait for the update lock is negative: " + wait);
      }
      this.lockWait = wait;
      return this;
    }

    /**
     * Tells {@code listener} about every applied action (after its commit).
     *
     * @param listener told of each action; several listeners are told in the order they were added
     * @return this builder
     */
    public Builder listener(ActionListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * The environment.
     *
     * @return the environment, to create apps on
     * @throws IllegalStateException when neither a store folder nor a store was given
     */
    public Environment build() {
      if (dbPath == null && store == null) {
        throw new IllegalStateException(
            "an Environment needs a state store: set dbPath(...) or stateStore(...)");
      }
      return new Environment(this);
    }
  }
}
