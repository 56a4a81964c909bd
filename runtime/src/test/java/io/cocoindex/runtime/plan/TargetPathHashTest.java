package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.state.ByteKey;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Paths hash well enough for the engine's hash maps: integer keys, whose encodings differ only in
 * their last bytes, spread over the buckets of a table sized for them.
 */
class TargetPathHashTest {

  @Test
  void pathsThatDifferInTheirLastBytesSpreadOverTheBuckets() {
    TargetPath table = TargetPath.of(List.of(StableKey.of("@rows"), StableKey.of("t")));
    int n = 100_000;
    int buckets = 1 << 17; // what a HashMap holding n entries has
    Set<Integer> hashes = new HashSet<>();
    Set<Integer> used = new HashSet<>();
    for (long id = 0; id < n; id++) {
      int h = table.child(StableKey.of(id)).hashCode();
      hashes.add(h);
      used.add((h ^ (h >>> 16)) & (buckets - 1));
    }

    // A 32-bit hash of 100k values collides about once by chance; a weak one far more often.
    assertThat(hashes.size()).isGreaterThan(n - 10);
    // Uniform hashing fills 1 - e^(-n/buckets) of the buckets: about 53% here.
    assertThat(used.size()).isGreaterThan((int) (0.5 * buckets));
  }

  @Test
  void equalPathsHashEquallyWhateverBuiltThem() {
    TargetPath built = TargetPath.of(List.of(StableKey.of("a"))).child(StableKey.of(123456789L));
    TargetPath decoded = TargetPath.decode(built.encoded());

    assertThat(decoded).isEqualTo(built).hasSameHashCodeAs(built);
    assertThat(ByteKey.of(built.encoded())).isEqualTo(built.key())
        .hasSameHashCodeAs(built.key());
  }
}
