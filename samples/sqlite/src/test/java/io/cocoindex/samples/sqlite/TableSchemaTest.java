package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.StableKey;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.RecordComponent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A row is read from its record in one call, or one call per component for a wide record. */
class TableSchemaTest {
  record Chunk(String file, long ordinal, String text, Double score) {}

  private static final TableSchema<Chunk> CHUNKS =
      TableSchema.of("chunks", Chunk.class, "file", "ordinal");

  @Test
  void aRowHoldsEveryComponentInOrderAndItsKeyInKeyOrder() {
    Row row = CHUNKS.row(new Chunk("a.md", 3, "text", null));

    assertThat(row.values()).containsExactly(SqlValue.of("a.md"), SqlValue.of(3L),
        SqlValue.of("text"), SqlValue.of(null));
    assertThat(row.key()).isEqualTo(
        new StableKey.Array(List.of(StableKey.of("a.md"), StableKey.of(3L))));
  }

  @Test
  void aNullPrimaryKeyColumnIsNamed() {
    assertThatThrownBy(() -> CHUNKS.row(new Chunk(null, 3, "text", 1.0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("null primary-key column 'file'");
  }

  @Test
  void componentsPastTheCollectedLimitAreReadOneByOneAlike() throws Throwable {
    RecordComponent[] components = Chunk.class.getRecordComponents();
    MethodHandle[] accessors = new MethodHandle[components.length];
    for (int i = 0; i < components.length; i++) {
      accessors[i] = TableSchema.accessor(Chunk.class, components[i]);
    }
    Chunk chunk = new Chunk("b.md", 7, "body", 0.5);

    Object[] collected = (Object[]) TableSchema.readAll(accessors, 200).invokeExact((Object) chunk);
    Object[] inTurn = (Object[]) TableSchema.readAll(accessors, 2).invokeExact((Object) chunk);

    assertThat(collected).containsExactly("b.md", 7L, "body", 0.5);
    assertThat(inTurn).containsExactly(collected);
  }
}
