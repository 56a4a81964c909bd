package io.cocoindex.reliability;

import java.lang.reflect.RecordComponent;

/** Reading a record's components by reflection, for the property tests' comparisons. */
final class RecordComponents {
  private RecordComponents() {}

  /** The value of component {@code c} of {@code record}. */
  static Object read(RecordComponent c, Object record) {
    try {
      c.getAccessor().setAccessible(true);
      return c.getAccessor().invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read " + c + " of " + record.getClass(), e);
    }
  }
}
