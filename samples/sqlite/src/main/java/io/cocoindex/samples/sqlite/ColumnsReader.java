package io.cocoindex.samples.sqlite;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.slf4j.LoggerFactory;

/**
 * Reads every column value of a row record in one call (see {@link TableSchema}).
 *
 * <p>A record type's reader is a class of its own, defined at run time from the bytes of {@link
 * ConstantColumnsReader} with the type's method handle as a constant: the JIT compiles a call
 * through a constant handle like direct calls to the record's accessors, where a handle held in a
 * field is called through lambda forms it does not inline (9% of a warm rerun's component
 * threads). Where no class can be defined, the handle is called from a field.
 */
interface ColumnsReader {
  /** The values of {@code row}'s components, in component order. */
  SqlValue[] read(Object row) throws Throwable;

  /** A reader calling {@code readAll}, a handle of type {@code (Object) SqlValue[]}. */
  static ColumnsReader of(MethodHandle readAll) {
    MethodHandle exact = readAll.asType(MethodType.methodType(SqlValue[].class, Object.class));
    try {
      MethodHandles.Lookup hidden = MethodHandles.lookup()
          .defineHiddenClassWithClassData(templateBytes(), exact, true);
      return (ColumnsReader) hidden.findConstructor(
          hidden.lookupClass(), MethodType.methodType(void.class)).invoke();
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) {
      // No class file to read (a repackaged jar), or a class the JVM refused: slower, still right.
      LoggerFactory.getLogger(ColumnsReader.class)
          .debug("rows are read through a method handle held in a field", e);
      return row -> (SqlValue[]) exact.invokeExact(row);
    }
  }

  private static byte[] templateBytes() throws IOException {
    String name = ConstantColumnsReader.class.getSimpleName() + ".class";
    try (InputStream in = ConstantColumnsReader.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("no class file " + name + " among the connector's classes");
      }
      return in.readAllBytes();
    }
  }
}
