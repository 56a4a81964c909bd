package io.cocoindex.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a failed update says: each failed component with its error's message, except that an
 * error a foreground child's failure passed up through its parents' bodies is given once, with
 * the component it came from, and attached to the exception once.
 */
class UpdateFailedExceptionTest {
  @TempDir Path dir;

  @Test
  void anErrorLetThroughTheBodiesAboveItsComponentIsGivenOnceWithWhereItCameFrom() {
    try (App app = App.create("nested", Environment.builder().dbPath(dir.resolve("s")).build(),
        ctx -> ctx.useMount("docs", c -> {
          c.useMount("a.md", cc -> {
            throw new IllegalStateException("a.md broke");
          });
          return null;
        }))) {
      assertThatThrownBy(app::update)
          .isInstanceOf(UpdateFailedException.class)
          .hasMessage("update of app 'nested': 3 components failed\n"
              + "  /\"docs\"/\"a.md\": a.md broke\n"
              + "  /\"docs\": the error of /\"docs\"/\"a.md\", which its body let through\n"
              + "  /: the error of /\"docs\"/\"a.md\", which its body let through")
          .satisfies(e -> assertThat(e.getSuppressed()).isEmpty());
    }
  }

  @Test
  void oneErrorOfComponentsNotAboveEachOtherIsGivenForEach() {
    IllegalStateException shared = new IllegalStateException("the source is down");
    IllegalStateException own = new IllegalStateException("b broke");
    UpdateFailedException e = new UpdateFailedException("update of app 'x'", List.of(
        new ComponentFailure("/1/\"a\"", shared), new ComponentFailure("/12", shared),
        new ComponentFailure("/2", own)), new UpdateStats(Map.of(), 0, 0, Duration.ZERO));

    assertThat(e).hasMessage("update of app 'x': 3 components failed\n"
        + "  /1/\"a\": the source is down\n"
        + "  /12: the source is down\n"
        + "  /2: b broke");
    assertThat(e.getCause()).isSameAs(shared);
    assertThat(e.getSuppressed()).containsExactly(own);
  }
}
