package test;

import io.cocoindex.codec.FieldNames;
import io.cocoindex.codec.GeneratedCodec;
import io.cocoindex.codec.GeneratedCodecs;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.codec.ValueWriter;
import javax.annotation.processing.Generated;

/**
 * The generated codec of {@link Row}.
 */
@Generated("io.cocoindex.processor.CocoIndexProcessor")
@SuppressWarnings({"unchecked", "rawtypes", "deprecation", "removal"})
public final class Row_Codec implements GeneratedCodec<Row> {
  private static final FieldNames FIELDS = new FieldNames("test.Row", "id", "text");

  /**
   * The codec; it holds no state.
   */
  public static final Row_Codec INSTANCE = new Row_Codec();

  private Row_Codec() {
  }

  @Override
  public Class<Row> type() {
    return Row.class;
  }

  @Override
  public void write(ValueWriter out, Row value) {
    if (value == null) {
      out.writeNull();
      return;
    }
    out.beginObject();
    out.field(FIELDS, 0);
    out.writeString(value.id());
    out.field(FIELDS, 1);
    out.writeString(value.text());
    out.endObject();
  }

  @Override
  public Row read(ValueReader in) {
    if (in.readNull()) {
      return null;
    }
    String _id = null;
    String _text = null;
    in.beginObject();
    for (int field = in.nextField(FIELDS); field != FieldNames.END; field = in.nextField(FIELDS)) {
      switch (field) {
        case 0: // id
          _id = in.readString();
          break;
        case 1: // text
          _text = in.readString();
          break;
      }
    }
    return new Row(_id, _text);
  }

  @Override
  public boolean copiesDirectly() {
    return true;
  }

  @Override
  public Row copy(Row value) {
    if (value == null) {
      return null;
    }
    GeneratedCodecs.checkString(value.id());
    GeneratedCodecs.checkString(value.text());
    return value;
  }
}
