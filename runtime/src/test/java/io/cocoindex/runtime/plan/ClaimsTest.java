package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A run's claims: each path belongs to the first component that declares it. */
class ClaimsTest {
  private static final TargetPath TABLE = TargetPath.of(List.of(StableKey.of("@rows")));
  private static final TargetPath A = TargetPath.of(List.of(StableKey.of("a")));
  private static final TargetPath B = TargetPath.of(List.of(StableKey.of("b")));

  private static List<DeclaredTarget> rows(long from, long to) {
    List<DeclaredTarget> out = new ArrayList<>();
    for (long id = from; id < to; id++) {
      StableKey key = StableKey.of(id);
      out.add(new DeclaredTarget(null, key, TABLE.child(key), null, null, null));
    }
    return out;
  }

  @Test
  void aPathDeclaredByASecondComponentIsAConflictNamingTheFirst() {
    Claims claims = new Claims(0);

    assertThat(claims.claim(rows(0, 10), A)).isNull();
    Claims.Conflict conflict = claims.claim(rows(5, 6), B);

    assertThat(conflict).isNotNull();
    assertThat(conflict.other()).isEqualTo(A);
    assertThat(conflict.declared().key()).isEqualTo(StableKey.of(5L));
  }

  @Test
  void longPathsBetweenShortOnesAreKeptWhole() {
    Claims claims = new Claims(16);
    List<DeclaredTarget> declared = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      // Keys from a few bytes to 40 KB: short ones share chunks, long ones get their own.
      StableKey key = StableKey.of("k" + i + "-" + "x".repeat(i % 4 == 0 ? 1_000 * i : i));
      declared.add(new DeclaredTarget(null, key, TABLE.child(key), null, null, null));
    }
    assertThat(claims.claim(declared, A)).isNull();

    for (DeclaredTarget d : declared) {
      assertThat(claims.contains(d.path())).as("claimed %s", d.key()).isTrue();
      Claims.Conflict again = claims.claim(List.of(d), B);
      assertThat(again.other()).isEqualTo(A);
    }
    StableKey almost = StableKey.of("k8-" + "x".repeat(7_999)); // a prefix of a claimed key
    assertThat(claims.contains(TABLE.child(almost))).isFalse();
    assertThat(claims.contains(TABLE.child(StableKey.of("k1-y")))).isFalse();
  }

  @Test
  void theSameComponentClaimingAgainIsNoConflict() {
    Claims claims = new Claims(4);

    assertThat(claims.claim(rows(0, 3), A)).isNull();
    assertThat(claims.claim(rows(0, 3), A)).isNull();
  }

  @Test
  void claimsOutgrowingTheEstimateAreAllKept() {
    Claims claims = new Claims(10);
    for (long c = 0; c < 1_000; c++) {
      TargetPath component = TargetPath.of(List.of(StableKey.of(c)));
      assertThat(claims.claim(rows(c * 100, (c + 1) * 100), component)).isNull();
    }

    for (long id = 0; id < 100_000; id += 997) {
      assertThat(claims.contains(TABLE.child(StableKey.of(id)))).isTrue();
    }
    assertThat(claims.contains(TABLE.child(StableKey.of(100_000L)))).isFalse();
    Claims.Conflict late = claims.claim(rows(99_999, 100_000), A);
    assertThat(late.other()).isEqualTo(TargetPath.of(List.of(StableKey.of(999L))));
  }

  @Test
  void aClearedTableHoldsNothingAndClaimsAfresh() {
    Claims claims = new Claims(1_000);
    assertThat(claims.claim(rows(0, 1_000), A)).isNull();
    claims.clear();

    assertThat(claims.contains(TABLE.child(StableKey.of(5L)))).isFalse();
    TargetPath b = TargetPath.of(List.of(StableKey.of("b")));
    assertThat(claims.claim(rows(0, 1_000), b)).isNull();
    assertThat(claims.claim(rows(5, 6), A).other()).isEqualTo(b);
  }

  @Test
  void aTableSizedForManyAnswersBeforeAnyClaimAndClearsWithNone() {
    Claims claims = new Claims(100_000);
    assertThat(claims.contains(TABLE.child(StableKey.of(5L)))).isFalse();
    claims.clear();

    assertThat(claims.claim(rows(0, 10), A)).isNull();
    assertThat(claims.contains(TABLE.child(StableKey.of(5L)))).isTrue();
    assertThat(claims.contains(TABLE.child(StableKey.of(50L)))).isFalse();
    assertThat(claims.claim(rows(5, 6), B).other()).isEqualTo(A);
  }
}
