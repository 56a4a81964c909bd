package io.cocoindex.runtime;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The orphan sweep's chunk size for a test: the system property {@code cocoindex.sweep.chunk},
 * which each sweep reads as it starts. Registered on a field with {@code @RegisterExtension}, it
 * notes the property before each test (the PostgreSQL execution of the engine tests sets one for
 * them all) and puts it back after, whatever the test set meanwhile.
 */
final class SweepChunks implements BeforeEachCallback, AfterEachCallback {
  static final String PROPERTY = "cocoindex.sweep.chunk";

  /** The property as the test found it; null: not set. */
  private String before;

  @Override
  public void beforeEach(ExtensionContext context) {
    before = System.getProperty(PROPERTY);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    restore();
  }

  /** Every sweep from now on goes in chunks (and stale batches) of {@code n}. */
  void set(int n) {
    System.setProperty(PROPERTY, Integer.toString(n));
  }

  /** Every sweep from now on goes in chunks of the engine's default size. */
  void useDefault() {
    System.clearProperty(PROPERTY);
  }

  /** Puts the property back as the test found it. */
  void restore() {
    if (before == null) {
      System.clearProperty(PROPERTY);
    } else {
      System.setProperty(PROPERTY, before);
    }
  }
}
