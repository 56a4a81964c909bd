package io.cocoindex.samples.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.Fingerprint;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A row's fingerprint, kept in its tracking record, is the documented encoding of its values
 * hashed with SHA-256 and XORed with the columns' fingerprint ({@link RowDigest}). It is pinned:
 * a change would make every tracked row look changed and rewrite it once.
 */
class RowFingerprintTest {
  private static final byte[] COLUMNS = Fingerprint.ofString("id, name, ...").bytes();

  @Test
  void aRowIsTheSha256OfItsDocumentedEncodingXoredWithItsColumns() throws Exception {
    List<SqlValue> values = List.of(SqlValue.of(42L), SqlValue.of(-3L), SqlValue.of(2.5),
        SqlValue.of("té"), SqlValue.of(new byte[] {1, 2, 3}), SqlValue.of(null));
    ByteArrayOutputStream enc = new ByteArrayOutputStream();
    enc.write(6); // six values
    enc.write(new byte[] {1, 84}); // INTEGER 42, zigzag
    enc.write(new byte[] {1, 5}); // INTEGER -3, zigzag
    enc.write(2); // REAL, eight big-endian bytes
    enc.write(ByteBuffer.allocate(8).putLong(Double.doubleToLongBits(2.5)).array());
    enc.write(new byte[] {3, 3}); // TEXT of three UTF-8 bytes
    enc.write("té".getBytes(StandardCharsets.UTF_8));
    enc.write(new byte[] {4, 3, 1, 2, 3}); // BLOB of three bytes
    enc.write(0); // NULL
    byte[] hash = MessageDigest.getInstance("SHA-256").digest(enc.toByteArray());
    byte[] expected = new byte[16];
    for (int i = 0; i < 16; i++) {
      expected[i] = (byte) (hash[i] ^ COLUMNS[i]);
    }

    assertThat(RowDigest.of(COLUMNS, values)).isEqualTo(new Fingerprint(expected));
  }

  @Test
  void aRowsFingerprintIsPinned() {
    List<SqlValue> row = List.of(SqlValue.of(7L), SqlValue.of("item-7"), SqlValue.of(217L),
        SqlValue.of("row 7 at version 0"));

    // Computed apart from this code (Python's hashlib over the encoding above), with no columns.
    assertThat(RowDigest.of(new byte[16], row).toString())
        .isEqualTo("#85b3848391c4268213fe795c0efb24a1");
  }

  @Test
  void aChangedValueKindBoundaryOrColumnChangesTheFingerprint() {
    Fingerprint row = RowDigest.of(COLUMNS, List.of(SqlValue.of(1L)));

    assertThat(RowDigest.of(COLUMNS, List.of(SqlValue.of(2L)))).isNotEqualTo(row);
    assertThat(RowDigest.of(COLUMNS, List.of(SqlValue.of(1.0)))).isNotEqualTo(row);
    assertThat(RowDigest.of(COLUMNS, List.of(SqlValue.of("1")))).isNotEqualTo(row);
    assertThat(RowDigest.of(COLUMNS, List.of(SqlValue.of(1L), SqlValue.of(null))))
        .isNotEqualTo(row);
    byte[] otherColumns = Fingerprint.ofString("b").bytes();
    assertThat(RowDigest.of(otherColumns, List.of(SqlValue.of(1L)))).isNotEqualTo(row);
    assertThat(RowDigest.of(COLUMNS, List.of(SqlValue.of("ab"), SqlValue.of("c"))))
        .isNotEqualTo(RowDigest.of(COLUMNS, List.of(SqlValue.of("a"), SqlValue.of("bc"))));
    assertThat(RowDigest.of(COLUMNS, List.of(SqlValue.of("ab"))))
        .isNotEqualTo(RowDigest.of(COLUMNS, List.of(SqlValue.of("ab".getBytes(
            StandardCharsets.UTF_8)))));
    assertThat(RowDigest.of(COLUMNS, List.of(SqlValue.of(""))))
        .isNotEqualTo(RowDigest.of(COLUMNS, List.of(SqlValue.of(null))));
    // A TEXT or BLOB without its value is bound as NULL: it fingerprints as one.
    assertThat(RowDigest.of(COLUMNS, List.of(new SqlValue(SqlValue.Kind.TEXT, null, 0, 0, null),
        new SqlValue(SqlValue.Kind.BLOB, null, 0, 0, null))))
        .isEqualTo(RowDigest.of(COLUMNS, List.of(SqlValue.NULL, SqlValue.NULL)));
  }

  @Test
  void aLongRowIsDigestedWholeAndTheBufferIsReusedAfterIt() {
    byte[] big = new byte[200_000];
    Arrays.fill(big, (byte) 7);
    Fingerprint first = RowDigest.of(COLUMNS, List.of(SqlValue.of(big)));
    big[199_999] = 8;

    assertThat(RowDigest.of(COLUMNS, List.of(SqlValue.of(big)))).isNotEqualTo(first);
    assertThat(RowDigest.of(COLUMNS, List.of(SqlValue.of(1L))))
        .isEqualTo(RowDigest.of(COLUMNS, List.of(SqlValue.of(1L))));
  }
}
