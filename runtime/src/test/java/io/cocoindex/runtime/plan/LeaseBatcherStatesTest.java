package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.state.ComponentRecord;
import io.cocoindex.runtime.state.ForwardingStateStore;
import io.cocoindex.runtime.state.PossibleRecord;
import io.cocoindex.runtime.state.SqliteStateStore;
import io.cocoindex.runtime.state.StateStore;
import io.cocoindex.runtime.state.TrackedState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lease batch reads the states of the components it granted that have a record, together,
 * for their commits to take once; up to {@link LeaseBatcher#STATES_READ_PER_BATCH} states by the
 * counts in their records, the fewest first (held while their bodies run), the others reading
 * their own.
 */
class LeaseBatcherStatesTest {
  private static final String APP = "app";
  private static final TargetPath SMALL = component("small");
  private static final TargetPath LARGE = component("large");
  private static final TargetPath FITS = component("fits");
  private static final TargetPath NEW = component("new");

  @TempDir Path dir;
  private SqliteStateStore embedded;
  /** The state counts of the records the fake store holds. */
  private final Map<TargetPath, Long> recorded =
      Map.of(SMALL, 3L, LARGE, LeaseBatcher.STATES_READ_PER_BATCH - 2L,
          FITS, LeaseBatcher.STATES_READ_PER_BATCH - 3L);
  /** The components whose states each read asked for. */
  private final List<List<TargetPath>> statesReads = new ArrayList<>();
  private final List<Runnable> queued = new ArrayList<>();
  private LeaseBatcher batcher;

  @BeforeEach
  void open() {
    embedded = SqliteStateStore.open(dir);
    StateStore store = new ForwardingStateStore(embedded) {
      @Override
      public List<Optional<ComponentRecord>> componentsAt(String app, List<byte[]> paths) {
        List<Optional<ComponentRecord>> out = new ArrayList<>();
        for (byte[] p : paths) {
          Long states = recorded.get(TargetPath.decode(p));
          out.add(states == null ? Optional.empty()
              : Optional.of(new ComponentRecord(p, null, null, null, states)));
        }
        return out;
      }

      @Override
      public List<List<TrackedState>> ownedByEach(String app, List<byte[]> owners) {
        List<TargetPath> read = new ArrayList<>();
        List<List<TrackedState>> out = new ArrayList<>();
        for (byte[] owner : owners) {
          read.add(TargetPath.decode(owner));
          out.add(List.of(new TrackedState(TargetPath.decode(owner).child(StableKey.of("s"))
              .encoded(), owner, List.of(new PossibleRecord(1, new byte[] {1})), 0, 0, 0, 0)));
        }
        statesReads.add(read);
        return out;
      }
    };
    batcher = new LeaseBatcher(store, APP, queued::add);
  }

  @AfterEach
  void close() {
    embedded.close();
  }

  @Test
  void aBatchReadsTheStatesOfItsComponentsWithRecordsUpToItsBound() throws Exception {
    List<CompletableFuture<LeaseBatcher.Leased>> leased = new ArrayList<>();
    for (TargetPath c : List.of(SMALL, LARGE, FITS, NEW)) {
      leased.add(batcher.lease(c.encoded(), true));
    }
    runQueued();

    // One batch: the two with the fewest states reach the bound, the large one's would pass it,
    // and the new one has no record.
    assertThat(statesReads).containsExactly(List.of(SMALL, FITS));
    assertThat(batcher.takeStates(SMALL)).singleElement()
        .satisfies(s -> assertThat(s.owner()).isEqualTo(SMALL.encoded()));
    assertThat(batcher.takeStates(SMALL)).as("taken once").isNull();
    assertThat(batcher.takeStates(LARGE)).isNull();
    assertThat(batcher.takeStates(NEW)).isNull();
    assertThat(leased.get(3).get().recordRead()).isTrue();
    assertThat(leased.get(3).get().record()).isNull();

    // A component that gives its lease back before its commit took them lets go of them.
    leased.get(2).get().lease().close();
    assertThat(batcher.takeStates(FITS)).isNull();
  }

  private void runQueued() {
    while (!queued.isEmpty()) {
      queued.remove(0).run();
    }
  }

  private static TargetPath component(String name) {
    return TargetPath.of(List.of(StableKey.of(name)));
  }
}
