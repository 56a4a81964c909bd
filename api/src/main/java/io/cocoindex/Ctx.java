package io.cocoindex;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The context of one processing component. Every declaration and mount takes it explicitly: there
 * is no ambient context.
 *
 * <p>A processing component is the unit of commit: its declared target states are reconciled,
 * applied and remembered together when its body (and its mounted children) finish.
 *
 * <p>{@link #get}, {@link #mount} and {@link #useMount} are the contract; the memo methods,
 * {@link #path} and {@link #appName} have defaults that refuse, so that a context written for a
 * test needs no more.
 */
public interface Ctx {

  /**
   * The value the environment provides for {@code key}.
   *
   * @param key the key the value was provided under ({@code Environment.Builder.provide})
   * @param <T> the value type
   * @return the provided value
   * @throws IllegalStateException naming the key when the environment provides none
   */
  <T> T get(ContextKey<T> key);

  /**
   * Mounts a child processing component at {@code subpath} (converted with {@link StableKey#of}).
   * It runs concurrently on a bounded pool and commits on its own; this component completes after
   * all its children. While many of this component's children wait for their turn (1,024 in the
   * runtime), {@code mount} waits for some of them to start, so that a body mounting a million
   * children holds no more of them at once than one mounting a thousand.
   *
   * @param subpath the child's key under this component, stable across runs: its tracking is
   *     kept under it
   * @param component the child's body, given the child's context
   */
  void mount(Object subpath, Consumer<Ctx> component);

  /**
   * Runs a foreground child component at {@code subpath} and returns its result once it has
   * committed: target states it declared exist externally when this returns. States it declared
   * in an earlier run and no longer does are deleted at the end of the run, with every other
   * state no longer declared: only then is it known that no other component took them over.
   *
   * <p>The child runs on the calling thread, except past 64 foreground components nested on one
   * thread, where it runs on a thread of its own (a chain that deep would overflow the stack);
   * an app's {@code ThreadLocal}s do not follow it there.
   *
   * @param subpath the child's key under this component, stable across runs
   * @param component the child's body, given the child's context
   * @param <T> the body's result type
   * @return what the body returned
   */
  <T> T useMount(Object subpath, Function<Ctx, T> component);

  /**
   * Mounts a memoized child component: when the fingerprint of {@code input} ({@link
   * Fingerprint#of}) equals the one its last commit recorded (a killed run's commit included: the
   * next run takes it up), the body is not run and every
   * target state it and its descendants declared is carried forward with no handler call. The
   * memo is invalidated by a changed input, by a DESTRUCTIVE or LOSSY invalidation of a provider
   * it or a descendant declared on, by a container it declared into from outside its subtree
   * that is no longer declared when the memo is checked (a table renamed or removed: mount the
   * containers before the components that declare into them), and by a full reprocess. The body
   * must depend on nothing but {@code input} and what it declares into: put in {@code input}
   * whatever else decides what it declares, the version of your own processing included. A
   * state it declares again by its memo is declared: another component declaring it too is an
   * error, as for two bodies. A {@code dropState} runs the body (its
   * declarations discarded) for the providers it may register, so keep expensive work in
   * memoized functions ({@link #memo}), whose recorded results a drop reuses.
   *
   * <p>The input is fingerprinted just before the memo is checked, which may be on another thread
   * after this returns (so that the inputs of many children are fingerprinted on every core): do
   * not change it after mounting. An input that cannot be fingerprinted fails this child alone,
   * reported among the run's failures like a failing body, and its tracking is kept.
   *
   * @param subpath the child's key under this component, stable across runs
   * @param input everything the body's declarations depend on, of a type {@link Fingerprint#of}
   *     accepts
   * @param component the child's body, given the child's context
   * @throws UnsupportedOperationException from this default, for a context not made by the
   *     runtime
   */
  default void mountMemo(Object subpath, Object input, Consumer<Ctx> component) {
    throw new UnsupportedOperationException(
        getClass().getName() + " does not memoize: use a context of the cocoindex runtime");
  }

  /**
   * A memoized function inside this component: returns the cached result of an earlier run for
   * the same {@code function} name, fingerprint of {@code input} and {@code resultType}, or
   * computes, caches and returns it; a stored result that can no longer be read (its type
   * changed shape) is computed again. Invalidated by a full reprocess.
   *
   * @param function the function's name, unique in this component and stable across runs
   * @param input the function's argument, of a type {@link Fingerprint#of} accepts
   * @param resultType the class the result is stored and read back as
   * @param compute computes the result from {@code input} on a miss
   * @param <I> the input type
   * @param <T> the result type
   * @return the cached result, or the one {@code compute} just returned
   * @throws UnsupportedOperationException from this default, for a context not made by the
   *     runtime
   */
  default <I, T> T memo(String function, I input, Class<T> resultType, Function<I, T> compute) {
    throw new UnsupportedOperationException(
        getClass().getName() + " does not memoize: use a context of the cocoindex runtime");
  }

  /**
   * The path of this component from the app's root component (empty for the root). The
   * runtime's contexts know it; this default, for contexts made elsewhere (a test's), knows none.
   *
   * @return the subpaths from the root to this component, outermost first
   * @throws UnsupportedOperationException from this default
   */
  default List<StableKey> path() {
    throw new UnsupportedOperationException(getClass().getName() + " has no component path");
  }

  /**
   * The name of the app this component runs in ({@code App.create}'s). Connectors record it
   * beside what they create in a target that several apps may write (a database's schema
   * objects), so that one app never takes another's: two apps writing one target need distinct
   * names. The runtime's contexts know it; this default, for contexts made elsewhere, knows none.
   *
   * @return the app's name
   * @throws UnsupportedOperationException from this default
   */
  default String appName() {
    throw new UnsupportedOperationException(getClass().getName() + " belongs to no app");
  }
}
