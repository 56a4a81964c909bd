package io.cocoindex.runtime.state;

import static io.cocoindex.runtime.state.StatePaths.path;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A state's lineage (its container's generation and epoch, and its own as a container) reads back
 * exactly as written, on both stores and by every read: the stores read the four numbers packed
 * in one column when they are small, and column by column when they are not.
 */
class StateLineageTest {
  private static final String APP = "app";
  private static final byte[] OWNER = path("component", "a");
  private static final long BIG = 1L << 40;
  private static final long[][] LINEAGES = {
      {0, 0, 0, 0}, {0, 0, 0, 9}, {1, 0, 0, 0}, {0, 2, 3, 0}, {5, 6, 7, 8},
      {32767, 32767, 32767, 32767}, {32768, 0, 0, 0}, {0, 0, 0, 32768}, {BIG, 1, BIG + 1, 2},
      {-1, 0, 0, 0}, {3, 4, 5, Long.MAX_VALUE}};

  @TempDir Path dir;

  @Test
  void readsBackOnTheEmbeddedStore() {
    try (StateStore store = SqliteStateStore.open(dir, SqliteStateStore.Durability.NORMAL)) {
      writeAndReadBack(store);
    }
  }

  @Test
  void readsBackOnPostgres() throws Exception {
    try (FreshSchema schema = FreshSchema.create("t_"); StateStore store = schema.open()) {
      writeAndReadBack(store);
    }
  }

  private static void writeAndReadBack(StateStore store) {
    for (int i = 0; i < LINEAGES.length; i++) {
      long[] l = LINEAGES[i];
      store.write(APP, List.of(new StateWrite.PutState(new TrackedState(path("t", "r" + i), OWNER,
          List.of(new PossibleRecord(1, "v".getBytes(StandardCharsets.UTF_8))),
          l[0], l[1], l[2], l[3])))).join();
    }

    List<TrackedState> owned = store.ownedBy(APP, OWNER);
    assertThat(owned).hasSize(LINEAGES.length);
    for (int i = 0; i < LINEAGES.length; i++) {
      byte[] p = path("t", "r" + i);
      TrackedState byOwner = owned.stream().filter(t -> Arrays.equals(t.path(), p))
          .findFirst().orElseThrow();
      for (TrackedState read : List.of(byOwner, store.get(APP, p).orElseThrow())) {
        assertThat(new long[] {read.childGeneration(), read.childEpoch(),
            read.parentGeneration(), read.parentEpoch()}).as("lineage %d", i)
            .containsExactly(LINEAGES[i]);
        assertThat(read.owner()).isEqualTo(OWNER);
        assertThat(read.records()).extracting(PossibleRecord::version).containsExactly(1L);
      }
    }
  }

}
