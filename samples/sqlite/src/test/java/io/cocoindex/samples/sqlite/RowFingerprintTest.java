package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Fingerprint;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A row's fingerprint, kept in its tracking record, stays what it has always been: the columns'
 * fingerprint and the values as Java values, fingerprinted together. A change here would make
 * every tracked row look changed and rewrite it once.
 */
class RowFingerprintTest {

  @Test
  void aRowFingerprintsAsItsColumnsAndJavaValuesTogether() {
    Fingerprint columns = Fingerprint.ofString("id INTEGER, name TEXT, ...");
    List<SqlValue> values = List.of(SqlValue.of(42L), SqlValue.of(2.5), SqlValue.of("text"),
        SqlValue.of(new byte[] {1, 2, 3}), SqlValue.of(null));
    Object[] java = values.stream().map(SqlValue::toJava).toArray();

    assertThat(RowHandler.fingerprint(columns, values))
        .isEqualTo(Fingerprint.of(List.of(columns, java)));
  }

  @Test
  void aChangedValueOrColumnChangesTheFingerprint() {
    Fingerprint columns = Fingerprint.ofString("a");
    Fingerprint row = RowHandler.fingerprint(columns, List.of(SqlValue.of(1L)));

    assertThat(RowHandler.fingerprint(columns, List.of(SqlValue.of(2L)))).isNotEqualTo(row);
    assertThat(RowHandler.fingerprint(columns, List.of(SqlValue.of(1.0)))).isNotEqualTo(row);
    assertThat(RowHandler.fingerprint(Fingerprint.ofString("b"), List.of(SqlValue.of(1L))))
        .isNotEqualTo(row);
  }
}
