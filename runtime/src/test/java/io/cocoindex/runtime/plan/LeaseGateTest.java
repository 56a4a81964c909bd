package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The gate that bounds the components in flight: fixed, or following their size. */
class LeaseGateTest {

  private static List<CompletableFuture<Void>> acquire(LeaseGate gate, int n) {
    List<CompletableFuture<Void>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(gate.acquire());
    }
    return out;
  }

  private static long done(List<CompletableFuture<Void>> slots) {
    return slots.stream().filter(CompletableFuture::isDone).count();
  }

  @Test
  void aFixedGateAdmitsItsSlotsThenTheLongestWaiterAtEachRelease() {
    LeaseGate gate = new LeaseGate(2);
    List<CompletableFuture<Void>> slots = acquire(gate, 4);
    assertThat(slots).extracting(CompletableFuture::isDone)
        .containsExactly(true, true, false, false);

    gate.reportSize(1); // a fixed gate ignores the components' size
    assertThat(gate.slots()).isEqualTo(2);
    assertThat(done(slots)).isEqualTo(2);

    gate.release();
    assertThat(slots).extracting(CompletableFuture::isDone)
        .containsExactly(true, true, true, false);
    gate.release();
    assertThat(done(slots)).isEqualTo(4);
  }

  @Test
  void smallComponentsOpenSlotsUpToTheMaximumAndAdmitTheWaiters() {
    LeaseGate gate = new LeaseGate(2, 6, 100);
    List<CompletableFuture<Void>> slots = acquire(gate, 8);
    assertThat(gate.slots()).isEqualTo(2);
    assertThat(done(slots)).isEqualTo(2);

    gate.reportSize(25); // 100 / 25: four slots
    assertThat(gate.slots()).isEqualTo(4);
    assertThat(slots).extracting(CompletableFuture::isDone)
        .containsExactly(true, true, true, true, false, false, false, false);

    gate.reportSize(0); // the mean falls towards none: as many slots as allowed, no more
    for (int i = 0; i < 40; i++) {
      gate.reportSize(0);
    }
    assertThat(gate.slots()).isEqualTo(6);
    assertThat(done(slots)).isEqualTo(6);
  }

  @Test
  void largeComponentsKeepTheMinimumAndSlotsTakenAboveALoweredBoundAreNotTakenBack() {
    LeaseGate gate = new LeaseGate(2, 6, 100);
    gate.reportSize(10);
    assertThat(gate.slots()).isEqualTo(6);
    List<CompletableFuture<Void>> held = acquire(gate, 6);
    assertThat(done(held)).isEqualTo(6);

    gate.reportSize(10_000); // the mean moves an eighth of the way per component
    for (int i = 0; i < 40; i++) {
      gate.reportSize(10_000);
    }
    assertThat(gate.slots()).isEqualTo(2);
    assertThat(done(held)).isEqualTo(6);

    CompletableFuture<Void> next = gate.acquire();
    for (int i = 0; i < 4; i++) {
      gate.release();
      assertThat(next).isNotDone(); // 6 -> 2 taken: still none free
    }
    gate.release();
    assertThat(next).isDone();
  }

  @Test
  void theMeanMovesAnEighthOfTheWayPerComponent() {
    LeaseGate gate = new LeaseGate(1, 1_000, 800);
    gate.reportSize(8); // the first sets the mean: 100 slots
    assertThat(gate.slots()).isEqualTo(100);
    gate.reportSize(16); // 8 + (16 - 8) / 8 = 9: 88 slots
    assertThat(gate.slots()).isEqualTo(88);
  }

  @Test
  void skipsWidenTheGateASlotEachUntilAComponentIsTakenAndLeaveTheMeanAsItWas() {
    LeaseGate gate = new LeaseGate(2, 10, 1_000);
    gate.reportSize(250); // 1,000 / 250: four slots
    List<CompletableFuture<Void>> slots = acquire(gate, 12);
    assertThat(done(slots)).isEqualTo(4);

    gate.reportSkipped();
    gate.reportSkipped();
    gate.reportSkipped();
    assertThat(gate.slots()).isEqualTo(7);
    assertThat(done(slots)).isEqualTo(7); // the waiters take what the skips opened
    for (int i = 0; i < 10; i++) {
      gate.reportSkipped();
    }
    assertThat(gate.slots()).isEqualTo(10); // no more than the maximum

    gate.reportTaken(); // back to what the mean admits; slots taken above are not taken back
    assertThat(gate.slots()).isEqualTo(4);
    assertThat(done(slots)).isEqualTo(10);
    gate.reportSize(250); // the skips never moved the mean
    assertThat(gate.slots()).isEqualTo(4);
  }

  @Test
  void beforeAnySizeSkipsWidenTheMinimum() {
    LeaseGate gate = new LeaseGate(2, 64, 1_000);
    gate.reportSkipped();
    gate.reportSkipped();
    assertThat(gate.slots()).isEqualTo(4);
    gate.reportTaken();
    assertThat(gate.slots()).isEqualTo(2);
  }

  @Test
  void badBoundsAreRejectedNamingThem() {
    assertThatThrownBy(() -> new LeaseGate(4, 2, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("slots 4..2, budget 10");
    assertThatThrownBy(() -> new LeaseGate(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("slots 0..0, budget 0");
  }
}
