package io.cocoindex.bench;

import java.util.Arrays;
import java.util.List;

/** Medians of repeated measurements. */
final class Stats {
  private Stats() {}

  static double median(List<Long> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("no values");
    }
    long[] v = values.stream().mapToLong(Long::longValue).sorted().toArray();
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
  }
}
