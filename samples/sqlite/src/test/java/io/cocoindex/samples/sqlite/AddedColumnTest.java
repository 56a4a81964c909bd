package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.App;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A column added to a table is filled for every row, memoized components' rows included. */
class AddedColumnTest extends TargetDatabaseTest {
  record Doc(String id, String title) {}

  record DocWithYear(String id, String title, long year) {}

  @Test
  void anAddedColumnIsFilledInForTheRowsOfMemoizedComponents() throws Exception {
    boolean[] withYear = {false};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      if (withYear[0]) {
        SqliteTable<DocWithYear> t =
            sqlite.mountTable(ctx, TableSchema.of("docs", DocWithYear.class, "id"));
        for (String id : List.of("a", "b")) {
          // The same input as before: the component's own rerun is skipped, and only the
          // table's invalidation can make it declare its rows again.
          ctx.mountMemo(id, Fingerprint.ofString("source of " + id),
              c -> t.declareRow(c, new DocWithYear(id, "T" + id, 2024)));
        }
      } else {
        SqliteTable<Doc> t = sqlite.mountTable(ctx, TableSchema.of("docs", Doc.class, "id"));
        for (String id : List.of("a", "b")) {
          ctx.mountMemo(id, Fingerprint.ofString("source of " + id),
              c -> t.declareRow(c, new Doc(id, "T" + id)));
        }
      }
    });
    app.update();
    List<String> rowids = q("SELECT rowid FROM docs ORDER BY id");
    withYear[0] = true;
    app.update();

    // Updated in place: the rows keep their rowids.
    assertThat(q("SELECT rowid, id, title, quote(year) FROM docs ORDER BY id")).containsExactly(
        rowids.get(0) + "|a|Ta|2024", rowids.get(1) + "|b|Tb|2024");
    app.update();
    assertThat(q("SELECT id, quote(year) FROM docs ORDER BY id"))
        .containsExactly("a|2024", "b|2024");
  }
}
