package io.cocoindex.samples.postgres;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * JSON text in one form per {@code jsonb} value, as {@code jsonb} compares: an object's keys in
 * one order, a repeated key's last value, numbers by value ({@code 1.0} is {@code 1}), strings by
 * their characters (escapes decoded), no spaces. Two texts PostgreSQL stores as equal {@code
 * jsonb} values get one form, so a key's reformatting (a serializer's spacing, its key order) is
 * not a new key whose old form's delete would take the row.
 */
final class JsonbCanonical {
  private final String text;
  private int pos;

  private JsonbCanonical(String text) {
    this.text = text;
  }

  /**
   * The canonical form of {@code json}.
   *
   * @throws IllegalArgumentException when it is not one JSON value (the server would refuse it)
   */
  static String of(String json) {
    JsonbCanonical p = new JsonbCanonical(json);
    StringBuilder out = new StringBuilder(json.length());
    p.value(out);
    p.blanks();
    if (p.pos != json.length()) {
      throw p.error("text after the JSON value");
    }
    return out.toString();
  }

  private void value(StringBuilder out) {
    blanks();
    if (pos >= text.length()) {
      throw error("a value expected");
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{' -> object(out);
      case '[' -> array(out);
      case '"' -> quote(string(), out);
      default -> {
        if (text.startsWith("true", pos) || text.startsWith("null", pos)) {
          out.append(text, pos, pos + 4);
          pos += 4;
        } else if (text.startsWith("false", pos)) {
          out.append("false");
          pos += 5;
        } else {
          number(out);
        }
      }
    }
  }

  private void object(StringBuilder out) {
    pos++; // {
    Map<String, String> members = new TreeMap<>(); // a repeated key: the last value, as jsonb
    blanks();
    if (peek() == '}') {
      pos++;
    } else {
      while (true) {
        blanks();
        if (peek() != '"') {
          throw error("a member name expected");
        }
        String name = string();
        blanks();
        expect(':');
        StringBuilder v = new StringBuilder();
        value(v);
        members.put(name, v.toString());
        blanks();
        if (peek() == ',') {
          pos++;
        } else {
          expect('}');
          break;
        }
      }
    }
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> m : members.entrySet()) {
      out.append(first ? "" : ",");
      quote(m.getKey(), out);
      out.append(':').append(m.getValue());
      first = false;
    }
    out.append('}');
  }

  private void array(StringBuilder out) {
    pos++; // [
    List<String> items = new ArrayList<>();
    blanks();
    if (peek() == ']') {
      pos++;
    } else {
      while (true) {
        StringBuilder v = new StringBuilder();
        value(v);
        items.add(v.toString());
        blanks();
        if (peek() == ',') {
          pos++;
        } else {
          expect(']');
          break;
        }
      }
    }
    out.append('[').append(String.join(",", items)).append(']');
  }

  private void number(StringBuilder out) {
    int start = pos;
    while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
    if (start == pos) {
      throw error("a value expected");
    }
    try {
      BigDecimal d = new BigDecimal(text.substring(start, pos));
      // One text per value: stripped of trailing zeros, a value has one unscaled value and
      // scale, and toString writes them alike (not toPlainString: 1e999999999 would be a
      // billion digits).
      out.append(d.signum() == 0 ? "0" : d.stripTrailingZeros().toString());
    } catch (NumberFormatException e) {
      throw error("a number expected");
    }
  }

  /** A string's characters, its escapes decoded. */
  private String string() {
    pos++; // "
    StringBuilder s = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw error("an unterminated string");
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        return s.toString();
      }
      if (c != '\\') {
        s.append(c);
        continue;
      }
      if (pos >= text.length()) {
        throw error("an unterminated escape");
      }
      char e = text.charAt(pos++);
      switch (e) {
        case '"', '\\', '/' -> s.append(e);
        case 'b' -> s.append('\b');
        case 'f' -> s.append('\f');
        case 'n' -> s.append('\n');
        case 'r' -> s.append('\r');
        case 't' -> s.append('\t');
        case 'u' -> {
          if (pos + 4 > text.length()) {
            throw error("a short \\u escape");
          }
          s.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
          pos += 4;
        }
        default -> throw error("an unknown escape \\" + e);
      }
    }
  }

  private static void quote(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  private void blanks() {
    while (pos < text.length() && " \t\n\r".indexOf(text.charAt(pos)) >= 0) {
      pos++;
    }
  }

  private char peek() {
    return pos < text.length() ? text.charAt(pos) : 0;
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("'" + c + "' expected");
    }
    pos++;
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at offset " + pos + " of " + text);
  }
}
