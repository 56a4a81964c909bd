package io.cocoindex.samples.sqlite;

import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;

/**
 * The template of each record type's {@link ColumnsReader}: never loaded as itself, but defined
 * again as a hidden class per record type, whose class data is the type's {@code (Object)
 * SqlValue[]} method handle. A static final handle is a constant the JIT inlines through.
 */
final class ConstantColumnsReader implements ColumnsReader {
  private static final MethodHandle READ_ALL;

  static {
    try {
      READ_ALL = MethodHandles.classData(
          MethodHandles.lookup(), ConstantDescs.DEFAULT_NAME, MethodHandle.class);
    } catch (IllegalAccessException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @Override
  public SqlValue[] read(Object row) throws Throwable {
    return (SqlValue[]) READ_ALL.invokeExact(row);
  }
}
