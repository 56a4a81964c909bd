package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.state.ByteKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A run's claims: each path belongs to the first component that declares it. A path new to its
 * component goes into the table; one it owned stays out, and a takeover is checked against its
 * owner's declarations, whichever of the two claims first.
 */
class ClaimsTest {
  private static final TargetPath TABLE = TargetPath.of(List.of(StableKey.of("@rows")));
  private static final TargetPath A = TargetPath.of(List.of(StableKey.of("a")));
  private static final TargetPath B = TargetPath.of(List.of(StableKey.of("b")));

  /** {@code component} declares {@code declared}, none of which it owned. */
  private static Claims.Conflict acquire(
      Claims claims, List<DeclaredTarget> declared, TargetPath component) {
    return claims.claim(Claims.Declarations.allAcquired(component, declared));
  }

  /** {@code component} declares {@code declared}, all of which it owned. */
  private static Claims.Conflict keep(
      Claims claims, TargetPath component, List<DeclaredTarget> declared) {
    return claims.claim(new Claims.Declarations(component, declared, List.of(), Map.of()));
  }

  /** {@code component} declares {@code declared}, which {@code owner} owned. */
  private static Claims.Conflict takeOver(
      Claims claims, TargetPath component, List<DeclaredTarget> declared, TargetPath owner) {
    Map<ByteKey, TargetPath> owners = new HashMap<>();
    for (DeclaredTarget d : declared) {
      owners.put(d.path().key(), owner);
    }
    return claims.claim(new Claims.Declarations(component, declared, declared, owners));
  }

  private static List<DeclaredTarget> rows(long from, long to) {
    List<DeclaredTarget> out = new ArrayList<>();
    for (long id = from; id < to; id++) {
      StableKey key = StableKey.of(id);
      out.add(new DeclaredTarget(null, key, TABLE.child(key), null, null));
    }
    return out;
  }

  @Test
  void aPathDeclaredByASecondComponentIsAConflictNamingTheFirst() {
    Claims claims = new Claims();

    assertThat(acquire(claims, rows(0, 10), A)).isNull();
    Claims.Conflict conflict = acquire(claims, rows(5, 6), B);

    assertThat(conflict).isNotNull();
    assertThat(conflict.other()).isEqualTo(A);
    assertThat(conflict.declared().key()).isEqualTo(StableKey.of(5L));
  }

  @Test
  void longPathsBetweenShortOnesAreKeptWhole() {
    Claims claims = new Claims();
    List<DeclaredTarget> declared = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      // Keys from a few bytes to 40 KB: short ones share chunks, long ones get their own.
      StableKey key = StableKey.of("k" + i + "-" + "x".repeat(i % 4 == 0 ? 1_000 * i : i));
      declared.add(new DeclaredTarget(null, key, TABLE.child(key), null, null));
    }
    assertThat(acquire(claims, declared, A)).isNull();

    for (DeclaredTarget d : declared) {
      assertThat(claims.contains(d.path())).as("claimed %s", d.key()).isTrue();
      Claims.Conflict again = acquire(claims, List.of(d), B);
      assertThat(again.other()).isEqualTo(A);
    }
    StableKey almost = StableKey.of("k8-" + "x".repeat(7_999)); // a prefix of a claimed key
    assertThat(claims.contains(TABLE.child(almost))).isFalse();
    assertThat(claims.contains(TABLE.child(StableKey.of("k1-y")))).isFalse();
  }

  @Test
  void theSameComponentClaimingAgainIsNoConflict() {
    Claims claims = new Claims();

    assertThat(acquire(claims, rows(0, 3), A)).isNull();
    assertThat(acquire(claims, rows(0, 3), A)).isNull();
  }

  @Test
  void claimsOutgrowingTheEstimateAreAllKept() {
    Claims claims = new Claims();
    for (long c = 0; c < 1_000; c++) {
      TargetPath component = TargetPath.of(List.of(StableKey.of(c)));
      assertThat(acquire(claims, rows(c * 100, (c + 1) * 100), component)).isNull();
    }

    for (long id = 0; id < 100_000; id += 997) {
      assertThat(claims.contains(TABLE.child(StableKey.of(id)))).isTrue();
    }
    assertThat(claims.contains(TABLE.child(StableKey.of(100_000L)))).isFalse();
    Claims.Conflict late = acquire(claims, rows(99_999, 100_000), A);
    assertThat(late.other()).isEqualTo(TargetPath.of(List.of(StableKey.of(999L))));
  }

  @Test
  void aClearedTableHoldsNothingAndClaimsAfresh() {
    Claims claims = new Claims();
    assertThat(acquire(claims, rows(0, 1_000), A)).isNull();
    claims.clear();

    assertThat(claims.contains(TABLE.child(StableKey.of(5L)))).isFalse();
    TargetPath b = TargetPath.of(List.of(StableKey.of("b")));
    assertThat(acquire(claims, rows(0, 1_000), b)).isNull();
    assertThat(acquire(claims, rows(5, 6), A).other()).isEqualTo(b);
  }

  @Test
  void aTableAnswersBeforeAnyClaimAndClearsWithNone() {
    Claims claims = new Claims();
    assertThat(claims.contains(TABLE.child(StableKey.of(5L)))).isFalse();
    claims.clear();

    assertThat(acquire(claims, rows(0, 10), A)).isNull();
    assertThat(claims.contains(TABLE.child(StableKey.of(5L)))).isTrue();
    assertThat(claims.contains(TABLE.child(StableKey.of(50L)))).isFalse();
    assertThat(acquire(claims, rows(5, 6), B).other()).isEqualTo(A);
  }

  @Test
  void pathsAComponentOwnedAndDeclaresAgainStayOutOfTheTable() {
    Claims claims = new Claims();

    assertThat(keep(claims, A, rows(0, 10))).isNull();

    assertThat(claims.contains(TABLE.child(StableKey.of(5L)))).isFalse();
  }

  @Test
  void takingOverAPathItsOwnerDeclaredAgainIsAConflictNamingTheOwner() {
    Claims claims = new Claims();
    assertThat(keep(claims, A, rows(0, 10))).isNull();

    Claims.Conflict conflict = takeOver(claims, B, rows(5, 6), A);

    assertThat(conflict.other()).isEqualTo(A);
    assertThat(conflict.declared().key()).isEqualTo(StableKey.of(5L));
  }

  @Test
  void ownersThatClaimAfterTheFirstTakeoverAreFoundByTheNext() {
    TargetPath c = TargetPath.of(List.of(StableKey.of("c")));
    TargetPath d = TargetPath.of(List.of(StableKey.of("d")));
    Claims claims = new Claims();
    assertThat(keep(claims, A, rows(0, 10))).isNull();
    assertThat(takeOver(claims, B, rows(5, 6), A).other()).isEqualTo(A); // the first lookup

    assertThat(keep(claims, c, rows(20, 30))).isNull();
    Claims.Conflict conflict = takeOver(claims, d, rows(25, 26), c);

    assertThat(conflict.other()).isEqualTo(c);
    assertThat(conflict.declared().key()).isEqualTo(StableKey.of(25L));
  }

  @Test
  void anOwnerDeclaringAgainAPathTakenOverBeforeItsClaimIsAConflictNamingTheTaker() {
    Claims claims = new Claims();
    assertThat(takeOver(claims, B, rows(5, 6), A)).isNull();

    Claims.Conflict conflict = keep(claims, A, rows(0, 10));

    assertThat(conflict.other()).isEqualTo(B);
    assertThat(conflict.declared().key()).isEqualTo(StableKey.of(5L));
  }

  @Test
  void takingOverAPathItsOwnerNoLongerDeclaresIsNoConflictInEitherOrder() {
    // A owned 0 to 9 and declares 0 to 8; B takes 9 over.
    Claims before = new Claims();
    assertThat(keep(before, A, rows(0, 9))).isNull();
    assertThat(takeOver(before, B, rows(9, 10), A)).isNull();

    Claims after = new Claims();
    assertThat(takeOver(after, B, rows(9, 10), A)).isNull();
    assertThat(keep(after, A, rows(0, 9))).isNull();

    // The orphan sweep sees the path declared, and leaves it to its new owner.
    assertThat(before.contains(TABLE.child(StableKey.of(9L)))).isTrue();
    assertThat(after.contains(TABLE.child(StableKey.of(9L)))).isTrue();
  }

  @Test
  void anOwnerThatKeptNothingDeclaredNoneOfItsPaths() {
    Claims claims = new Claims();
    assertThat(acquire(claims, rows(100, 110), A)).isNull(); // all new paths, none it owned

    assertThat(takeOver(claims, B, rows(5, 6), A)).isNull();
  }

  @Test
  void twoComponentsTakingOverOnePathConflictInTheTable() {
    Claims claims = new Claims();
    TargetPath c = TargetPath.of(List.of(StableKey.of("c")));
    assertThat(takeOver(claims, B, rows(5, 6), A)).isNull();

    assertThat(takeOver(claims, c, rows(5, 6), A).other()).isEqualTo(B);
  }

  @Test
  void aLargeComponentSplitInTwoIsNoConflictAndAPathBothDeclareIs() {
    TargetPath c = TargetPath.of(List.of(StableKey.of("c")));
    Claims ownerFirst = new Claims();
    assertThat(keep(ownerFirst, A, rows(0, 20_000))).isNull();
    assertThat(takeOver(ownerFirst, B, rows(20_000, 40_000), A)).isNull();
    assertThat(takeOver(ownerFirst, c, rows(19_999, 20_000), A).other()).isEqualTo(A);

    Claims takerFirst = new Claims();
    assertThat(takeOver(takerFirst, B, rows(20_000, 40_000), A)).isNull();
    assertThat(keep(takerFirst, A, rows(0, 20_000))).isNull();
  }

  @Test
  void everyOwnerAmongThousandsThatKeptPathsIsFoundByATakeoverFromIt() {
    // Enough owners to fill several chunks of what they declared, and one so large that it is
    // kept apart, between the others.
    Claims claims = new Claims();
    List<TargetPath> owners = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      TargetPath owner = TargetPath.of(List.of(StableKey.of("owner"), StableKey.of((long) i)));
      owners.add(owner);
      List<DeclaredTarget> declared = i == 1_500 ? rows(1_000_000, 1_005_000)
          : rows(10L * i, 10L * i + 10);
      assertThat(keep(claims, owner, declared)).isNull();
    }

    Claims.Conflict first = takeOver(claims, B, rows(3, 4), owners.get(0));
    Claims.Conflict large = takeOver(claims, B, rows(1_004_999, 1_005_000), owners.get(1_500));
    Claims.Conflict last = takeOver(claims, B, rows(29_999, 30_000), owners.get(2_999));

    assertThat(first.other()).isEqualTo(owners.get(0));
    assertThat(large.other()).isEqualTo(owners.get(1_500));
    assertThat(last.other()).isEqualTo(owners.get(2_999));
    assertThat(takeOver(claims, B, rows(15_000, 15_001), owners.get(1_500))).isNull();
  }

  @Test
  void aComponentClaimingAgainIsJudgedByWhatItDeclaredLast() {
    Claims claims = new Claims();
    assertThat(keep(claims, A, rows(0, 10))).isNull();
    assertThat(keep(claims, A, rows(0, 5))).isNull();

    assertThat(takeOver(claims, B, rows(7, 8), A)).isNull();
    assertThat(takeOver(claims, B, rows(3, 4), A).other()).isEqualTo(A);
  }
}
