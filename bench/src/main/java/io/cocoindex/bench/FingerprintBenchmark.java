package io.cocoindex.bench;

import io.cocoindex.Fingerprint;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What the engine's fingerprints cost, alone: a memoized component's key (the fingerprint of
 * its 100 bench rows, as {@code mountMemo} takes it) and one row's tracking record built with
 * {@link Fingerprint#builder()} (the columns' fingerprint and the row's four values), as a
 * connector would build it (the SQLite connector did until it got an encoding of its own,
 * {@code RowDigest}, in the twenty-first session). Workloads 3-4 pay the first for every
 * component; a whole run is too noisy here to show a change to them, this is not. Not part of
 * the harness's table:
 *
 * <pre>
 * java -cp bench/target/cocoindex-bench.jar org.openjdk.jmh.Main FingerprintBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FingerprintBenchmark {
  private List<BenchRow> component;
  private BenchRow row;
  private Fingerprint columns;

  @Setup
  public void setup() {
    component = new Dataset(100_000, 100).rows(500);
    row = component.get(42);
    columns = Fingerprint.of(List.of("id", "name", "amount", "body"));
  }

  /** The memo key of one component of 100 rows. */
  @Benchmark
  public Fingerprint memoKeyOf100Rows() {
    return Fingerprint.of(component);
  }

  /** One row's tracking record, built value by value with the fingerprint builder. */
  @Benchmark
  public Fingerprint rowTrackingRecord() {
    return Fingerprint.builder().beginList(2).add(columns).beginList(4)
        .add(row.id()).add(row.name()).add(row.amount()).add(row.body()).build();
  }
}
