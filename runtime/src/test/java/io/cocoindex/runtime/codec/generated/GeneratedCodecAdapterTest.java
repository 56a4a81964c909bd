package io.cocoindex.runtime.codec.generated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.codec.FieldNames;
import io.cocoindex.codec.GeneratedCodec;
import io.cocoindex.codec.GeneratedCodecs;
import io.cocoindex.codec.ValueReader;
import io.cocoindex.codec.ValueWriter;
import io.cocoindex.runtime.codec.CodecException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Decoding reuses one reader per thread: each value reads with its own name table, a value
 * decoded while another is being read gets a reader of its own, and a failed value leaves the
 * thread's reader ready for the next.
 */
class GeneratedCodecAdapterTest {

  record Point(String label, int x) {}

  /** A name, points, and one more point stored as bytes, decoded from inside its read. */
  record Shape(String name, List<Point> points, byte[] inner) {}

  static final class PointCodec implements GeneratedCodec<Point> {
    static final FieldNames FIELDS = new FieldNames("Point", "label", "x");

    @Override
    public Class<Point> type() {
      return Point.class;
    }

    @Override
    public void write(ValueWriter out, Point p) {
      out.beginObject();
      out.field(FIELDS, 0);
      out.writeString(p.label());
      out.field(FIELDS, 1);
      out.writeInt(p.x());
      out.endObject();
    }

    @Override
    public Point read(ValueReader in) {
      String label = null;
      int x = 0;
      in.beginObject();
      for (int f = in.nextField(FIELDS); f != FieldNames.END; f = in.nextField(FIELDS)) {
        if (f == 0) {
          label = in.readString();
        } else {
          x = in.readInt();
        }
      }
      return new Point(label, x);
    }
  }

  static final GeneratedCodecAdapter<Point> POINTS = new GeneratedCodecAdapter<>(new PointCodec());

  /**
   * A value of another class, which only an unchecked type argument lets through (a child
   * provider whose value type was inferred wrongly), is named with the type to declare instead.
   */
  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void aValueOfAnotherClassNamesTheTypeToDeclare() {
    GeneratedCodecAdapter<Object> points = (GeneratedCodecAdapter) POINTS;
    String expected = "cannot serialize a java.lang.Integer as " + Point.class.getName()
        + ": the handler takes " + Point.class.getName() + " here, so declare values of that type";
    assertThatThrownBy(() -> points.encode(42))
        .isInstanceOf(CodecException.class).hasMessageStartingWith(expected);
    assertThatThrownBy(() -> points.copy(42))
        .isInstanceOf(CodecException.class).hasMessageStartingWith(expected);
  }

  static final class ShapeCodec implements GeneratedCodec<Shape> {
    static final FieldNames FIELDS = new FieldNames("Shape", "name", "points", "inner");
    /** The point decoded from {@code inner} while the shape was being read. */
    Point innerPoint;

    @Override
    public Class<Shape> type() {
      return Shape.class;
    }

    @Override
    public void write(ValueWriter out, Shape s) {
      out.beginObject();
      out.field(FIELDS, 0);
      out.writeString(s.name());
      out.field(FIELDS, 1);
      GeneratedCodecs.writeList(out, s.points(), (o, p) -> new PointCodec().write(o, p));
      out.field(FIELDS, 2);
      out.writeBytes(s.inner());
      out.endObject();
    }

    @Override
    public Shape read(ValueReader in) {
      String name = null;
      List<Point> points = List.of();
      byte[] inner = null;
      in.beginObject();
      for (int f = in.nextField(FIELDS); f != FieldNames.END; f = in.nextField(FIELDS)) {
        if (f == 0) {
          name = in.readString();
        } else if (f == 1) {
          points = GeneratedCodecs.readList(in, i -> new PointCodec().read(i));
        } else {
          inner = in.readBytes();
          innerPoint = POINTS.decode(inner); // while this reader is in use
        }
      }
      return new Shape(name, points, inner);
    }
  }

  @Test
  void eachValueReadsItsOwnSharedNamesThoughTheReaderIsReused() throws Exception {
    ShapeCodec codec = new ShapeCodec();
    GeneratedCodecAdapter<Shape> shapes = new GeneratedCodecAdapter<>(codec);
    Shape shape = new Shape("first", List.of(new Point("a", 1), new Point("b", 2)),
        POINTS.encode(new Point("in", 7)));
    byte[] point = POINTS.encode(new Point("z", 26));
    byte[] bytes = shapes.encode(shape);
    // On a thread of its own, so that its reader starts empty: a point first, then a shape. The
    // shape's second point names its fields by reference into the shape's own table; with the
    // point's names left in the table, the references would land on other names and fail.
    List<Object> decoded = new ArrayList<>();
    Thread reader = new Thread(() -> {
      for (int i = 0; i < 2; i++) {
        decoded.add(POINTS.decode(point));
        decoded.add(shapes.decode(bytes));
      }
    });
    reader.start();
    reader.join();
    assertThat(decoded).hasSize(4);
    for (int i = 0; i < 4; i += 2) {
      assertThat(decoded.get(i)).isEqualTo(new Point("z", 26));
      Shape s = (Shape) decoded.get(i + 1);
      assertThat(s.name()).isEqualTo("first");
      assertThat(s.points()).containsExactly(new Point("a", 1), new Point("b", 2));
    }
    assertThat(codec.innerPoint).isEqualTo(new Point("in", 7));
  }

  @Test
  void aValueDecodedWhileAnotherIsReadDoesNotDisturbIt() {
    ShapeCodec codec = new ShapeCodec();
    GeneratedCodecAdapter<Shape> shapes = new GeneratedCodecAdapter<>(codec);
    Shape shape = new Shape("outer", List.of(new Point("after", 3)),
        POINTS.encode(new Point("nested", 9)));
    byte[] bytes = shapes.encode(shape);
    Shape decoded = shapes.decode(bytes);
    assertThat(decoded.name()).isEqualTo("outer");
    assertThat(decoded.points()).containsExactly(new Point("after", 3));
    assertThat(Arrays.equals(decoded.inner(), shape.inner())).isTrue();
    assertThat(codec.innerPoint).isEqualTo(new Point("nested", 9));
  }

  @Test
  void aValueThatFailsLeavesTheThreadsReaderReadyForTheNext() {
    byte[] good = POINTS.encode(new Point("ok", 5));
    byte[] truncated = Arrays.copyOf(good, good.length - 2);
    assertThatThrownBy(() -> POINTS.decode(truncated))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("expected a number at /x, found the end of the input");
    assertThatThrownBy(() -> POINTS.decode(new byte[] {1, 2, 3, 4, 5}))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("Smile header is missing");
    assertThat(POINTS.decode(good)).isEqualTo(new Point("ok", 5));
  }
}
