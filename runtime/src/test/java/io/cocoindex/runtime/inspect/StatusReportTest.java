package io.cocoindex.runtime.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The report keeps the order it is given (the inspector's: by provider name) and is immutable. */
class StatusReportTest {
  @Test
  void providersKeepTheGivenOrderSoThatAStatusListingIsTheSameOnEveryRun() {
    Map<String, List<StableKey>> sorted = new TreeMap<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String name = "provider" + (char) ('a' + i % 26) + i;
      names.add(name);
      sorted.put(name, new ArrayList<>(List.of(StableKey.of(i))));
    }
    StatusReport report = new StatusReport("app", sorted, List.of(), 1);
    assertThat(report.providers().keySet()).containsExactlyElementsOf(sorted.keySet());
    assertThat(report.total()).isEqualTo(40);
  }

  @Test
  void reportIsImmutableAndDetachedFromItsSource() {
    List<StableKey> keys = new ArrayList<>(List.of(StableKey.of("a")));
    Map<String, List<StableKey>> providers = new TreeMap<>(Map.of("rows", keys));
    StatusReport report = new StatusReport("app", providers, List.of(), 1);
    keys.add(StableKey.of("b"));
    providers.put("other", List.of());
    assertThat(report.providers()).containsOnlyKeys("rows");
    assertThat(report.providers().get("rows")).containsExactly(StableKey.of("a"));
    assertThatThrownBy(() -> report.providers().get("rows").add(StableKey.of("c")))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> report.providers().put("x", List.of()))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aTableListsEachProvidersStatesThenTheTotalsAndTheUnsettledStates() {
    Map<String, List<StableKey>> providers = new java.util.LinkedHashMap<>();
    providers.put("tables", List.of(StableKey.of("docs")));
    providers.put("tables/docs", List.of(StableKey.of("a"), StableKey.of("b")));
    StatusReport settled = new StatusReport("app", providers, List.of(), 3);
    assertThat(settled.toTable()).isEqualTo(String.format(
        "provider      states%n"
            + "tables             1%n"
            + "tables/docs        2%n"
            + "3 target states, 3 components, all settled%n"));

    StatusReport unsettled = new StatusReport("app", providers, List.of(
        new StatusReport.UnsettledState("tables/docs", "/@tables/\"docs\"/\"b\"", 2, true)), 3);
    assertThat(unsettled.toTable()).endsWith(String.format(
        "3 target states, 3 components, 1 unsettled (left by an interrupted or failed run)%n"
            + "  unsettled /@tables/\"docs\"/\"b\": 2 possible records, may be missing%n"));
  }

  @Test
  void aTableListsTheFirstTwentyUnsettledStatesAndCountsTheRest() {
    List<StatusReport.UnsettledState> unsettled = new ArrayList<>();
    for (int i = 0; i < 2576; i++) {
      unsettled.add(new StatusReport.UnsettledState("rows", "/@rows/" + i, 2, false));
    }
    String table = new StatusReport("app", Map.of("rows", List.of()), unsettled, 1).toTable();
    assertThat(table.lines().filter(l -> l.startsWith("  unsettled "))).hasSize(20);
    assertThat(table).contains("  unsettled /@rows/19: 2 possible records")
        .doesNotContain("/@rows/20:")
        .endsWith(String.format("  ... and 2556 more unsettled; the next update reconciles them%n"));
  }
}
