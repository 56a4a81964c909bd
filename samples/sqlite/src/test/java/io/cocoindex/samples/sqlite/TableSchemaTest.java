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
    MethodHandle[] readers = new MethodHandle[components.length];
    for (int i = 0; i < components.length; i++) {
      readers[i] = TableSchema.valueReader(Chunk.class, components[i]);
    }
    Chunk chunk = new Chunk("b.md", 7, "body", 0.5);

    SqlValue[] collected =
        (SqlValue[]) TableSchema.readAll(readers, 200).invokeExact((Object) chunk);
    SqlValue[] inTurn = (SqlValue[]) TableSchema.readAll(readers, 2).invokeExact((Object) chunk);

    assertThat(collected).containsExactly(SqlValue.of("b.md"), SqlValue.of(7L),
        SqlValue.of("body"), SqlValue.of(0.5));
    assertThat(inTurn).containsExactly(collected);
  }

  @Test
  void aRecordTypeIsReadThroughOneClassOfItsOwnWhateverTheSchemasMadeOfIt() throws Throwable {
    ColumnsReader reader = TableSchema.READERS.get(Chunk.class);
    TableSchema.of("other_chunks", Chunk.class, "text").row(new Chunk("c.md", 1, "x", null));

    assertThat(reader.getClass().isHidden()).as("a class with the handle as a constant").isTrue();
    assertThat(TableSchema.READERS.get(Chunk.class)).isSameAs(reader);
    assertThat(reader.read(new Chunk("c.md", 2, "y", 1.0))).containsExactly(
        SqlValue.of("c.md"), SqlValue.of(2L), SqlValue.of("y"), SqlValue.of(1.0));
  }

  @Test
  void aHandleIsReadThroughAClassOfItsOwnPerHandle() throws Throwable {
    RecordComponent text = Chunk.class.getRecordComponents()[2];
    MethodHandle[] one = {TableSchema.valueReader(Chunk.class, text)};
    ColumnsReader a = ColumnsReader.of(TableSchema.readAll(one, 200));
    ColumnsReader b = ColumnsReader.of(TableSchema.readAll(one, 200));

    assertThat(a.getClass()).isNotSameAs(b.getClass());
    assertThat(a.read(new Chunk("d.md", 3, "z", null))).containsExactly(SqlValue.of("z"));
  }

  record Primitives(long id, int i, short s, byte b, boolean yes, double d, float f,
      Integer boxed, byte[] blob) {}

  @Test
  void primitiveComponentsReadAsTheValuesTheirBoxesConvertTo() {
    Row row = TableSchema.of("p", Primitives.class, "id")
        .row(new Primitives(1, -2, (short) 3, (byte) -4, true, 0.25, 1.5f, 6, new byte[] {7}));

    assertThat(row.values().subList(0, 8)).containsExactly(SqlValue.of((Object) 1L),
        SqlValue.of((Object) (-2)), SqlValue.of((Object) (short) 3),
        SqlValue.of((Object) (byte) -4), SqlValue.of((Object) true), SqlValue.of((Object) 0.25),
        SqlValue.of((Object) 1.5f), SqlValue.of((Object) 6));
    assertThat(row.values().get(8).blob()).containsExactly(7);
  }
}
