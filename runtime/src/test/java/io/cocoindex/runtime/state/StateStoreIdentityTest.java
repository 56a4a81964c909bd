package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.TestPostgres;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A store's identity tells its data apart from other stores': every store open on one SQLite
 * file has the same, however its directory was spelled (absolute, relative, with {@code .},
 * through a link); a store on another file, or in another PostgreSQL schema, has another. A
 * decorator has its delegate's; a store that cannot name its data has one of its own.
 */
class StateStoreIdentityTest {
  @TempDir Path dir;

  @Test
  void sqliteStoresOnOneFileHaveItsRealPathHoweverTheirDirectoryIsSpelled() throws Exception {
    Path store = dir.resolve("store");
    Path link = Files.createSymbolicLink(dir.resolve("link"), store);
    Path relative = Path.of(".").resolve(
        Path.of("").toAbsolutePath().relativize(store.toAbsolutePath()));
    List<Path> spellings = List.of(store, store.resolve("."), relative, link);

    List<String> identities = new java.util.ArrayList<>();
    for (Path spelling : spellings) {
      try (SqliteStateStore s = SqliteStateStore.open(spelling)) {
        identities.add(s.identity());
      }
    }

    assertThat(relative.toString()).startsWith("./");
    assertThat(identities).as("opened at %s", spellings)
        .containsOnly("jdbc:sqlite:" + store.toRealPath().resolve("state.db"));
  }

  @Test
  void sqliteStoresOnTwoFilesOpenAtOnceHaveTwoIdentities() throws Exception {
    try (SqliteStateStore a = SqliteStateStore.open(dir.resolve("a"));
        SqliteStateStore alsoA = SqliteStateStore.open(dir.resolve("a"));
        SqliteStateStore b = SqliteStateStore.open(dir.resolve("b"))) {
      assertThat(alsoA.identity()).isEqualTo(a.identity());
      assertThat(b.identity()).isNotEqualTo(a.identity())
          .isEqualTo("jdbc:sqlite:" + dir.resolve("b").toRealPath().resolve("state.db"));
    }
  }

  @Test
  void postgresStoresInOneSchemaShareAnIdentityAndOthersInAnotherSchemaDoNot() throws Exception {
    try (FreshSchema one = FreshSchema.create("id_a_");
        FreshSchema two = FreshSchema.create("id_b_")) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL(one.url());
      try (PostgresStateStore byUrl = one.open();
          PostgresStateStore byDataSource = PostgresStateStore.open(ds);
          PostgresStateStore inTwo = two.open()) {
        String server = TestPostgres.url().split("\\?", 2)[0]; // jdbc:postgresql://host:port/db

        assertThat(byUrl.identity()).isEqualTo(server + "?currentSchema=" + one.name());
        assertThat(byDataSource.identity()).as("opened on a data source")
            .isEqualTo(byUrl.identity());
        assertThat(inTwo.identity()).isEqualTo(server + "?currentSchema=" + two.name());
      }
    }
  }

  @Test
  void theServerOfAPostgresUrlIsItsHostsAsWritten() {
    assertThat(PostgresStateStore.hostsOf("jdbc:postgresql://DB.example:5432/app?user=u"))
        .isEqualTo("db.example:5432");
    assertThat(PostgresStateStore.hostsOf("jdbc:postgresql://a:5432,b:5433/app"))
        .isEqualTo("a:5432,b:5433");
    assertThat(PostgresStateStore.hostsOf("jdbc:postgresql://[::1]?user=u")).isEqualTo("[::1]");
    assertThat(PostgresStateStore.hostsOf("jdbc:postgresql:app")).as("the default server")
        .isEmpty();
    assertThat(PostgresStateStore.hostsOf("jdbc:p6spy:postgresql://db/app"))
        .as("another driver's form").isNull();
  }

  @Test
  void aDecoratorHasItsDelegatesIdentity() {
    try (SqliteStateStore store = SqliteStateStore.open(dir)) {
      StateStore decorated = new ForwardingStateStore(store) {};

      assertThat(decorated.identity()).isEqualTo(store.identity());
    }
  }

  @Test
  void aStoreThatCannotNameItsDataHasAnIdentityOfItsOwn() {
    StateStore one = defaultsOnly();
    StateStore other = defaultsOnly();

    assertThat(one.identity()).isEqualTo(one.identity())
        .isEqualTo(one.getClass().getName() + "@"
            + Integer.toHexString(System.identityHashCode(one)));
    assertThat(other.identity()).isNotEqualTo(one.identity());
  }

  /** A store that answers only what {@link StateStore}'s defaults answer. */
  private static StateStore defaultsOnly() {
    return (StateStore) Proxy.newProxyInstance(StateStore.class.getClassLoader(),
        new Class<?>[] {StateStore.class}, (proxy, method, args) -> {
          if (method.isDefault()) {
            return InvocationHandler.invokeDefault(proxy, method, args);
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }
}
