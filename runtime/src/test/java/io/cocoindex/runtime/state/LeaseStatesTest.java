package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The default of taking several state leases: one by one, and nothing held after a failure. */
class LeaseStatesTest {
  final List<String> log = new ArrayList<>();

  /**
   * A store of which only {@code leaseState} is written: it logs taking and releasing, and the
   * lease of "bad" cannot be taken. {@code leaseStates} is the interface's default.
   */
  StateStore store() {
    InvocationHandler h = (proxy, method, args) -> {
      if (method.getName().equals("leaseState")) {
        String name = new String((byte[]) args[1], StandardCharsets.UTF_8);
        if (name.equals("bad")) {
          throw new StateStoreException("cannot lease " + name);
        }
        log.add("take " + name);
        return (AutoCloseable) () -> log.add("release " + name);
      }
      if (method.isDefault()) {
        return InvocationHandler.invokeDefault(proxy, method, args);
      }
      throw new UnsupportedOperationException(method.getName());
    };
    return (StateStore) Proxy.newProxyInstance(
        StateStore.class.getClassLoader(), new Class<?>[] {StateStore.class}, h);
  }

  static List<byte[]> paths(String... names) {
    List<byte[]> out = new ArrayList<>();
    for (String n : names) {
      out.add(n.getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  void takesEachInOrderAndReleasesWhatItTookWhenOneFails() throws Exception {
    StateStore store = store();
    List<AutoCloseable> leases = store.leaseStates("app", paths("a", "b"));
    assertThat(log).containsExactly("take a", "take b");
    for (AutoCloseable l : leases) {
      l.close();
    }
    log.clear();

    assertThatThrownBy(() -> store.leaseStates("app", paths("a", "b", "bad", "c")))
        .isInstanceOf(StateStoreException.class).hasMessage("cannot lease bad");
    assertThat(log).containsExactly("take a", "take b", "release a", "release b");
  }
}
