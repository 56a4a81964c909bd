package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.runtime.App;
import java.util.List;
import org.junit.jupiter.api.Test;

/** FTS5 full-text indexes: what exists in the database around them. */
class FullTextIndexTest extends TargetDatabaseTest {
  record Item(String id, String title) {}

  @Test
  void droppingATableKeepsTheIndexOfAnotherTableItsNameMatchesAsALikePattern() throws Exception {
    boolean[] both = {true};
    String[] title = {"fox"};
    App app = app(ctx -> {
      Sqlite sqlite = Sqlite.register(ctx, DB);
      SqliteTable<Item> items2 = sqlite.mountTable(ctx, TableSchema.of("items2", Item.class, "id"));
      items2.declareRow(ctx, new Item("r0", title[0]));
      items2.declareFullTextIndex(ctx, new FullTextIndex("items2_fts", List.of("title")));
      if (both[0]) {
        // "item_2" as a LIKE pattern matches "items2": '_' is any one character.
        sqlite.mountTable(ctx, TableSchema.of("item_2", Item.class, "id"))
            .declareRow(ctx, new Item("x", "y"));
      }
    });
    app.update();
    both[0] = false;
    app.update();
    title[0] = "cat";
    app.update();

    assertThat(schema()).containsExactly("table items2", "table items2_fts",
        "table items2_fts_config", "table items2_fts_data", "table items2_fts_docsize",
        "table items2_fts_idx", "trigger items2_fts_ad", "trigger items2_fts_ai",
        "trigger items2_fts_au");
    assertThat(q("SELECT rowid FROM items2_fts WHERE items2_fts MATCH 'cat'"))
        .containsExactly(q("SELECT rowid FROM items2 WHERE id = 'r0'").get(0));
  }
}
