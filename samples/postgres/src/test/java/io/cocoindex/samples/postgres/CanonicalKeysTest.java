package io.cocoindex.samples.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Canonical key values against the server: two values of a column type get one key exactly when
 * PostgreSQL finds them equal, bound as the row sink binds them ({@code CAST(? AS type)}).
 */
class CanonicalKeysTest {
  @BeforeEach
  void server() {
    PostgresServer.require();
  }

  /** Every pair of values: whether their keys are equal, and whether the server says equal. */
  static List<String> disagreements(String type, SqlValue... values) throws SQLException {
    String canonical = SqlNames.type("test", type);
    List<String> wrong = new ArrayList<>();
    try (Connection c = PostgresServer.DATA_SOURCE.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "SELECT CAST(? AS " + canonical + ") = CAST(? AS " + canonical + ")")) {
      for (SqlValue a : values) {
        for (SqlValue b : values) {
          RowSink.bind(ps, 1, a);
          RowSink.bind(ps, 2, b);
          boolean server;
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            server = rs.getBoolean(1);
          }
          boolean keys = CanonicalKeys.value(canonical, a).toKey()
              .equals(CanonicalKeys.value(canonical, b).toKey());
          if (keys != server) {
            wrong.add(type + ": " + a + " vs " + b + ": server " + server + ", keys " + keys);
          }
        }
      }
    }
    return wrong;
  }

  static SqlValue t(String s) {
    return SqlValue.ofText(s);
  }

  @Test
  void integersOneKeyForTheTextAndRoundedFloatForms() throws SQLException {
    assertThat(disagreements("bigint", SqlValue.ofLong(1), t("1"), t(" 1 "), t("+1"), t("01"),
        SqlValue.ofLong(2), SqlValue.ofDouble(1.0), SqlValue.ofDouble(1.5),
        SqlValue.ofDouble(2.5), SqlValue.ofLong(-3), t("-3"))).isEmpty();
    assertThat(disagreements("int", SqlValue.ofLong(7), t("7"), t("8"))).isEmpty();
  }

  @Test
  void numericsOneKeyWhateverTheScaleOrForm() throws SQLException {
    assertThat(disagreements("numeric", t("1.0"), t("1.00"), t("1"), SqlValue.ofLong(1),
        t("1e0"), t(" 1.50 "), t("1.5"), t("0.10"), SqlValue.ofDouble(0.1),
        SqlValue.of(new BigDecimal("0.1000")), t("NaN"), t("nan"), t("-0.0"), t("0"),
        t("100"), t("1E+2"), SqlValue.ofDouble(1.0 / 3), t("0.333333333333333"))).isEmpty();
    assertThat(disagreements("numeric(10,2)", t("1.005"), t("1.01"), t("1.015"), t("1.02"),
        t("-1.005"), t("-1.01"), t("2"), t("2.000"))).isEmpty();
    assertThat(disagreements("decimal(4)", t("1.4"), t("1"), t("1.5"), t("2"))).isEmpty();
  }

  @Test
  void floatsOneKeyForZeroAndNegativeZeroAndThroughSinglePrecision() throws SQLException {
    assertThat(disagreements("double precision", SqlValue.ofDouble(0.0),
        SqlValue.ofDouble(-0.0), t("-0"), SqlValue.ofDouble(Double.NaN), t("NaN"), t("0.1"),
        SqlValue.ofDouble(0.1), SqlValue.ofLong(1), SqlValue.ofDouble(1.0), t("1e0"),
        SqlValue.ofDouble(Double.POSITIVE_INFINITY), t("inf"), t("-Infinity"))).isEmpty();
    assertThat(disagreements("real", SqlValue.ofDouble(0.1), t("0.1"),
        SqlValue.ofDouble(0.10000000149011612), SqlValue.ofDouble(0.1000000001),
        SqlValue.ofDouble(0.2), SqlValue.ofLong(16777217), SqlValue.ofLong(16777216),
        SqlValue.ofDouble(-0.0), SqlValue.ofDouble(0.0))).isEmpty();
  }

  @Test
  void textsBooleansUuidsAndDates() throws SQLException {
    assertThat(disagreements("text", t("1"), SqlValue.ofLong(1), SqlValue.ofBool(true),
        t("true"), t("a\0b"), t("ab"), t("a b"))).isEmpty();
    assertThat(disagreements("char(3)", t("a"), t("a  "), t("a "), t("b"))).isEmpty();
    assertThat(disagreements("boolean", SqlValue.ofBool(true), t("t"), t("yes"), t(" ON "),
        SqlValue.ofBool(false), t("0"), t("off"))).isEmpty();
    assertThat(disagreements("uuid", t("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"),
        t("{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}"), t("a0eebc999c0b4ef8bb6d6bb9bd380a11"),
        SqlValue.of(java.util.UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
        t("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12"))).isEmpty();
    assertThat(disagreements("date", t("2024-03-01"), t(" 2024-03-01"), t("2024-03-02")))
        .isEmpty();
  }

  @Test
  void timestampsOneKeyPerInstantAsTheServerRoundsIt() throws SQLException {
    Instant at = Instant.parse("2024-03-01T10:00:00Z");
    Instant before2000 = Instant.parse("1999-12-31T23:59:59Z");
    List<SqlValue> instants = new ArrayList<>(List.of(
        SqlValue.of(at.atOffset(ZoneOffset.UTC)), SqlValue.of(at.atOffset(ZoneOffset.ofHours(2))),
        SqlValue.of(at.atZone(ZoneId.of("Europe/Paris"))), SqlValue.of(at),
        t("2024-03-01 12:00+02")));
    for (long nanos : new long[] {100, 500, 1_000, 1_499, 1_500, 2_500, 999_999_500L,
        1_499_999, 1_500_000, 2_500_000}) {
      instants.add(SqlValue.of(at.plusNanos(nanos)));
      instants.add(SqlValue.of(before2000.plusNanos(nanos)));
      instants.add(SqlValue.of(before2000.plusNanos(nanos).atOffset(ZoneOffset.ofHours(-7))));
    }
    SqlValue[] all = instants.toArray(SqlValue[]::new);
    assertThat(disagreements("timestamptz", all)).isEmpty();
    assertThat(disagreements("timestamp(3) with time zone", all)).isEmpty();
    assertThat(disagreements("timestamptz(0)", all)).isEmpty();

    LocalDateTime local = LocalDateTime.parse("2024-03-01T10:00");
    assertThat(disagreements("timestamp", SqlValue.of(local), t("2024-03-01T10:00:00"),
        t("2024-03-01 10:00:00.0000005"), SqlValue.of(local.plusNanos(1_500)),
        t("2024-03-01T10:00:00.000002"), t("2024-03-01T10:00:00+05:00"),
        SqlValue.of(local.plusNanos(999_999_500L)))).isEmpty();
    assertThat(disagreements("time", SqlValue.of(LocalTime.parse("10:00")),
        t("10:00:00.0000005"), t("10:00:00.000001"), t("10:00:00.0000015"),
        t("10:00:00.000002"))).isEmpty();
    assertThat(disagreements("time(0)", t("10:00:00.5"), t("10:00:01"), t("10:00:00.4"),
        t("10:00"))).isEmpty();
  }

  @Test
  void synonymsAreOneType() {
    assertThat(List.of("int", "INT4", "integer", "int2", "int8", "float", "float(24)", "float8",
        "bool", "decimal(10, 2)", "character varying(20)", "character", "char(3)",
        "timestamp with time zone", "timestamp(3) without time zone", "time with time zone",
        "int[]", "double  precision", "jsonb")
        .stream().map(t -> SqlNames.type("test", t)).toList())
        .containsExactly("integer", "integer", "integer", "smallint", "bigint",
            "double precision", "real", "double precision", "boolean", "numeric(10,2)",
            "varchar(20)", "char(1)", "char(3)", "timestamptz", "timestamp(3)", "timetz",
            "integer[]", "double precision", "jsonb");
  }

  @Test
  void offsetDateTimesKeyTheirInstant() {
    OffsetDateTime utc = OffsetDateTime.parse("2024-03-01T10:00Z");
    assertThat(CanonicalKeys.value("timestamptz", SqlValue.of(utc)).toKey())
        .isEqualTo(CanonicalKeys.value("timestamptz",
            SqlValue.of(utc.withOffsetSameInstant(ZoneOffset.ofHours(2)))).toKey())
        .hasToString("\"2024-03-01T10:00:00Z\"");
  }

  @Test
  void jsonbOneKeyWhateverTheSpacingKeyOrderEscapesOrNumberForm() throws SQLException {
    assertThat(disagreements("jsonb", t("{\"a\": 1}"), t("{\"a\":1}"), t(" {\"a\" : 1.0} "),
        t("{\"a\": 1, \"b\": [1, 2]}"), t("{\"b\":[1,2],\"a\":1}"), t("{\"b\":[2,1],\"a\":1}"),
        t("{\"a\": 2, \"a\": 1}"), t("{\"a\": \"A\"}"), t("{\"a\": \"\\u0041\"}"),
        t("[1e2, -0, 0.50]"), t("[100, 0, 0.5]"), t("\"x\""), t("true"), t("null"),
        t("{\"aa\": 1, \"b\": 2}"), t("{\"b\": 2, \"aa\": 1}"), t("{}"), t("[]")))
        .isEmpty();
  }

  @Test
  void citextOneKeyForAsciiTextInAnyCase() throws SQLException {
    try (Connection c = PostgresServer.DATA_SOURCE.getConnection();
        java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE EXTENSION IF NOT EXISTS citext SCHEMA public");
    }
    assertThat(disagreements("citext", t("Alice"), t("alice"), t("ALICE"), t("Bob"), t("bob "),
        t("bob"))).isEmpty();
  }
}
