package io.cocoindex.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * How busy the JIT's compiler threads were, from {@link CompilationMXBean}: untimed runs are
 * repeated until a run spends at most {@link #SETTLED_SHARE} of its time compiling, so that the
 * timed ones measure compiled code (see {@code EngineWorkloads#warmUp}).
 */
final class JitClock {
  /** A run that spends at most this share of its time compiling counts as compiled. */
  static final double SETTLED_SHARE = 0.05;

  private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
  private final boolean measurable = jit != null && jit.isCompilationTimeMonitoringSupported();

  /** Whether this JVM reports compilation time; if not, nothing counts as settled early. */
  boolean measurable() {
    return measurable;
  }

  /** The compiler threads' time so far, in milliseconds (0 where not measurable). */
  long compilingMillis() {
    return measurable ? jit.getTotalCompilationTime() : 0;
  }

  /** Runs {@code run}; returns the share of its wall time the compiler threads were busy. */
  double shareWhile(Runnable run) {
    long before = compilingMillis();
    long start = System.nanoTime();
    run.run();
    double millis = Math.max(1e-3, (System.nanoTime() - start) / 1e6);
    return measurable ? (compilingMillis() - before) / millis : Double.NaN;
  }

  /** Whether a run with {@code share} counts as compiled code. */
  boolean settled(double share) {
    return measurable && share <= SETTLED_SHARE;
  }
}
