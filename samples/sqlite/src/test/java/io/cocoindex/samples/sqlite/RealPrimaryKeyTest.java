package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateOptions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** REAL primary keys are keyed as SQLite compares them. */
class RealPrimaryKeyTest extends TargetDatabaseTest {
  record Num(double k, String v) {}

  final Map<Double, String> rows = new LinkedHashMap<>();

  App numbers() {
    return app(ctx -> {
      SqliteTable<Num> t = Sqlite.register(ctx, DB).mountTable(ctx,
          TableSchema.of("nums", Num.class, "k"));
      rows.forEach((k, v) -> t.declareRow(ctx, new Num(k, v)));
    });
  }

  @Test
  void negativeZeroAndZeroAreOneRow() throws Exception {
    App app = numbers();
    rows.put(-0.0, "negative zero");
    app.update();
    rows.clear();
    rows.put(0.0, "zero");
    app.update();
    app.update();

    assertThat(q("SELECT k, v FROM nums")).containsExactly("0.0|zero");
  }

  @Test
  void aNanPrimaryKeyIsAClearErrorAndWritesNothing() throws Exception {
    App app = numbers();
    rows.put(1.5, "one and a half");
    rows.put(Double.NaN, "not a number");

    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class)
        .hasMessageContaining("has a NaN primary-key column 'k'");
    assertThatThrownBy(() -> app.update(UpdateOptions.fullReprocess()))
        .isInstanceOf(UpdateFailedException.class);
    assertThat(q("SELECT quote(k), v FROM nums")).isEmpty();
  }
}
