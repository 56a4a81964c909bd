package io.cocoindex.statediff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StateDiffTest {

  private static TrackingRecordTransition<String> t(
      String desired, boolean prevMayBeMissing, String... prev) {
    return new TrackingRecordTransition<>(desired, Arrays.asList(prev), prevMayBeMissing);
  }

  @Nested
  class Diff {

    static Stream<Arguments> everyBranch() {
      return Stream.of(
          Arguments.of("no transition: skip", null, null),
          Arguments.of("undeclared, nothing observed: skip", t(null, false), null),
          Arguments.of("undeclared, nothing observed, may be missing: skip", t(null, true), null),
          Arguments.of("undeclared, observed: DELETE", t(null, false, "a"), DiffAction.DELETE),
          Arguments.of(
              "undeclared, observed, may be missing: DELETE",
              t(null, true, "a", "b"),
              DiffAction.DELETE),
          Arguments.of("declared, observed differs: REPLACE", t("a", false, "b"), DiffAction.REPLACE),
          Arguments.of(
              "declared, one of several observed differs: REPLACE",
              t("a", false, "a", "b"),
              DiffAction.REPLACE),
          Arguments.of(
              "declared, observed differs, may be missing: REPLACE",
              t("a", true, "b"),
              DiffAction.REPLACE),
          Arguments.of("declared, observed equal: skip", t("a", false, "a"), null),
          Arguments.of("declared, nothing observed, complete: skip", t("a", false), null),
          Arguments.of(
              "declared, nothing observed, may be missing: INSERT",
              t("a", true),
              DiffAction.INSERT),
          Arguments.of(
              "declared, observed equal, may be missing: UPSERT",
              t("a", true, "a"),
              DiffAction.UPSERT),
          Arguments.of(
              "declared, all observed equal, may be missing: UPSERT",
              t("a", true, "a", "a"),
              DiffAction.UPSERT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyBranch")
    void decidesTheWrite(
        String behaviour, TrackingRecordTransition<String> transition, DiffAction expected) {
      assertThat(StateDiff.diff(transition)).isEqualTo(expected);
    }

    @Test
    void comparesRecordsByEqualsNotIdentity() {
      record Row(String title) {}
      var transition = new TrackingRecordTransition<>(new Row("x"), List.of(new Row("x")), false);

      assertThat(StateDiff.diff(transition)).isNull();
    }
  }

  @Nested
  class Transition {

    @Test
    void comparesArrayRecordsByContent() {
      var same =
          new TrackingRecordTransition<>(new byte[] {1, 2}, List.of(new byte[] {1, 2}), false);
      assertThat(StateDiff.diff(same)).isNull();
      var changed =
          new TrackingRecordTransition<>(new byte[] {1, 2}, List.of(new byte[] {1, 3}), false);
      assertThat(StateDiff.diff(changed)).isEqualTo(DiffAction.REPLACE);
    }

    @Test
    void prevIsAnImmutableCopy() {
      List<String> prev = new java.util.ArrayList<>(List.of("a"));
      var transition = new TrackingRecordTransition<>("a", prev, false);
      prev.add("b");

      assertThat(transition.prev()).containsExactly("a");
      assertThatThrownBy(() -> transition.prev().add("c"))
          .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void prevRejectsNullRecords() {
      assertThatThrownBy(() -> t("a", false, "b", null))
          .isInstanceOf(NullPointerException.class);
    }
  }

  @Nested
  class ResolveSystemTransition {

    @Test
    void userManagedDesiredIsLeftAlone() {
      var resolved =
          StateDiff.resolveSystemTransition(
              MutualTrackingRecord.user("a"), List.of(MutualTrackingRecord.system("b")), true);

      assertThat(resolved).isNull();
    }

    @Test
    void userManagedPrevSuppressesTheDelete() {
      var resolved =
          StateDiff.resolveSystemTransition(
              null,
              List.of(MutualTrackingRecord.system("a"), MutualTrackingRecord.user("b")),
              false);

      assertThat(resolved).isNull();
    }

    @Test
    void undeclaredWithNothingObservedIsLeftAlone() {
      assertThat(StateDiff.<String>resolveSystemTransition(null, List.of(), true)).isNull();
    }

    @Test
    void systemDesiredDropsUserPrevRecordsAndReplacesTheSystemOne() {
      var resolved =
          StateDiff.resolveSystemTransition(
              MutualTrackingRecord.system("new"),
              List.of(MutualTrackingRecord.system("old"), MutualTrackingRecord.user("new")),
              false);

      assertThat(resolved).isEqualTo(new TrackingRecordTransition<>("new", List.of("old"), false));
      assertThat(StateDiff.diff(resolved)).isEqualTo(DiffAction.REPLACE);
    }

    @Test
    void undeclaredSystemStateResolvesToADeleteKeepingPrevMayBeMissing() {
      var resolved =
          StateDiff.resolveSystemTransition(null, List.of(MutualTrackingRecord.system("a")), true);

      assertThat(resolved).isEqualTo(new TrackingRecordTransition<>(null, List.of("a"), true));
      assertThat(StateDiff.diff(resolved)).isEqualTo(DiffAction.DELETE);
    }

    @Test
    void systemTakesOverAStateOnlyTheUserHadWithAnInsert() {
      var resolved =
          StateDiff.resolveSystemTransition(
              MutualTrackingRecord.system("a"), List.of(MutualTrackingRecord.user("a")), true);

      assertThat(resolved).isEqualTo(new TrackingRecordTransition<>("a", List.of(), true));
      assertThat(StateDiff.diff(resolved)).isEqualTo(DiffAction.INSERT);
    }
  }

  @Nested
  class DiffComposite {

    private CompositeTrackingRecord<String, String, String> table(
        String primaryKey, String... columnsAndTypes) {
      Map<String, String> columns = new LinkedHashMap<>();
      for (int i = 0; i < columnsAndTypes.length; i += 2) {
        columns.put(columnsAndTypes[i], columnsAndTypes[i + 1]);
      }
      return new CompositeTrackingRecord<>(primaryKey, columns);
    }

    @SafeVarargs
    private TrackingRecordTransition<CompositeTrackingRecord<String, String, String>> tt(
        CompositeTrackingRecord<String, String, String> desired,
        boolean prevMayBeMissing,
        CompositeTrackingRecord<String, String, String>... prev) {
      // Read element by element: handing the array itself on is what javac warns of here.
      List<CompositeTrackingRecord<String, String, String>> records = new ArrayList<>();
      for (CompositeTrackingRecord<String, String, String> r : prev) {
        records.add(r);
      }
      return new TrackingRecordTransition<>(desired, records, prevMayBeMissing);
    }

    @Test
    void unchangedMainWithAChangedColumnReplacesOnlyThatColumn() {
      var d =
          StateDiff.diffComposite(
              tt(table("id", "id", "bigint", "title", "varchar"), false,
                  table("id", "id", "bigint", "title", "text")));

      assertThat(d.main()).isNull();
      assertThat(d.subs())
          .containsExactly(
              Map.entry("id", new TrackingRecordTransition<>("bigint", List.of("bigint"), false)),
              Map.entry("title", new TrackingRecordTransition<>("varchar", List.of("text"), false)));
      assertThat(StateDiff.diff(d.subs().get("id"))).isNull();
      assertThat(StateDiff.diff(d.subs().get("title"))).isEqualTo(DiffAction.REPLACE);
    }

    @Test
    void mainReplaceMarksEverySubAsPossiblyMissing() {
      var d =
          StateDiff.diffComposite(
              tt(table("id2", "id", "bigint", "title", "text"), false,
                  table("id", "id", "bigint", "title", "text")));

      assertThat(d.main()).isEqualTo(DiffAction.REPLACE);
      assertThat(d.subs().values()).allMatch(TrackingRecordTransition::prevMayBeMissing);
      assertThat(StateDiff.diff(d.subs().get("id"))).isEqualTo(DiffAction.UPSERT);
    }

    @Test
    void subKeyMissingFromOneOfTwoPrevRecordsMayBeMissing() {
      var d =
          StateDiff.diffComposite(
              tt(table("id", "id", "bigint", "title", "text"), false,
                  table("id", "id", "bigint", "title", "text"),
                  table("id", "id", "bigint")));

      assertThat(d.subs().get("title"))
          .isEqualTo(new TrackingRecordTransition<>("text", List.of("text"), true));
      assertThat(d.subs().get("id").prevMayBeMissing()).isFalse();
    }

    @Test
    void undeclaredCompositeIsDeletedWithoutSubs() {
      var d = StateDiff.diffComposite(tt(null, false, table("id", "id", "bigint")));

      assertThat(d).isEqualTo(new CompositeDiff<>(DiffAction.DELETE, Map.of()));
    }

    @Test
    void undeclaredCompositeWithNothingObservedNeedsNothing() {
      assertThat(StateDiff.diffComposite(tt(null, true))).isEqualTo(CompositeDiff.none());
    }

    @Test
    void noTransitionNeedsNothing() {
      assertThat(StateDiff.<String, String, String>diffComposite(null))
          .isEqualTo(new CompositeDiff<String, String>(null, Map.of()));
    }

    @Test
    void subOnlyInPrevGetsATransitionToUndeclared() {
      var d =
          StateDiff.diffComposite(
              tt(table("id", "id", "bigint"), false, table("id", "id", "bigint", "old", "text")));

      assertThat(d.subs().get("old"))
          .isEqualTo(new TrackingRecordTransition<>(null, List.of("text"), false));
      assertThat(StateDiff.diff(d.subs().get("old"))).isEqualTo(DiffAction.DELETE);
    }

    @Test
    void brandNewCompositeInsertsMainAndEverySub() {
      var d = StateDiff.diffComposite(tt(table("id", "id", "bigint", "title", "text"), true));

      assertThat(d.main()).isEqualTo(DiffAction.INSERT);
      assertThat(d.subs().values()).extracting(StateDiff::diff)
          .containsExactly(DiffAction.INSERT, DiffAction.INSERT);
    }

    @Test
    void subsListDesiredKeysInDesiredOrderThenPrevOnlyKeysInFirstSeenOrder() {
      var d =
          StateDiff.diffComposite(
              tt(table("id", "z", "t", "a", "t"), false,
                  table("id", "p", "t", "a", "t"),
                  table("id", "b", "t", "p", "t")));

      assertThat(d.subs().keySet()).containsExactly("z", "a", "p", "b");
    }
  }

  @Nested
  class CompositeRecord {

    @Test
    void subOfAnUnorderedMapIsSortedByKey() {
      var record = new CompositeTrackingRecord<>("id", Map.of("c", 1, "a", 2, "b", 3));

      assertThat(record.sub().keySet()).containsExactly("a", "b", "c");
    }

    @Test
    void subOfALinkedHashMapKeepsInsertionOrder() {
      Map<String, Integer> columns = new LinkedHashMap<>();
      columns.put("c", 1);
      columns.put("a", 2);

      assertThat(new CompositeTrackingRecord<>("id", columns).sub().keySet())
          .containsExactly("c", "a");
    }

    @Test
    void subIsAnImmutableCopy() {
      Map<String, Integer> columns = new LinkedHashMap<>();
      columns.put("a", 1);
      var record = new CompositeTrackingRecord<>("id", columns);
      columns.put("b", 2);

      assertThat(record.sub()).containsOnlyKeys("a");
      assertThatThrownBy(() -> record.sub().put("c", 3))
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }
}
