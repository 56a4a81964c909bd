package io.cocoindex.processor.validate;

import java.util.Locale;
import javax.lang.model.SourceVersion;

/** Turning annotation names into Java names. */
public final class Identifiers {
  private Identifiers() {}

  /** A Java identifier that is not a keyword. */
  public static boolean isIdentifier(String s) {
    return SourceVersion.isIdentifier(s) && !SourceVersion.isKeyword(s);
  }

  /** {@code vector_index} and {@code vectorIndex} give {@code VectorIndex}. */
  public static String upperCamel(String s) {
    StringBuilder out = new StringBuilder();
    boolean upper = true;
    for (char c : s.toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.length() == 0 ? s : out.toString();
  }

  /**
   * The constant of an attachment type in {@code <Handler>_Attachments}: {@code vector_index}
   * gives {@code VECTOR_INDEX}, {@code byText} gives {@code BY_TEXT}.
   */
  public static String constantName(String name) {
    return name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
  }

  /** {@code Row} gives {@code row}; a name clashing with a parameter or keyword gives "value". */
  public static String parameterName(String upperCamel) {
    String s = upperCamel.substring(0, 1).toLowerCase(Locale.ROOT) + upperCamel.substring(1);
    return isIdentifier(s) && !s.equals("ctx") && !s.equals("key") ? s : "value";
  }
}
