package io.cocoindex.processor.validate;

import java.util.Locale;
import java.util.Set;
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

  /**
   * The default API class of a target named {@code name}: its English plural by the regular
   * rules ({@code Document} gives {@code Documents}, {@code Box} and {@code Branch} give {@code
   * Boxes} and {@code Branches}, {@code Directory} gives {@code Directories}). An irregular plural
   * ({@code Shelf}) takes the annotation's {@code api}.
   */
  public static String plural(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.endsWith("s") || lower.endsWith("x") || lower.endsWith("z")
        || lower.endsWith("ch") || lower.endsWith("sh")) {
      return name + "es";
    }
    if (lower.length() > 1 && lower.endsWith("y")
        && "aeiou".indexOf(lower.charAt(lower.length() - 2)) < 0) {
      return name.substring(0, name.length() - 1) + "ies";
    }
    return name + "s";
  }

  /**
   * {@code name} after its indefinite article, for generated Javadoc: {@code a Row}, {@code an
   * Entry}, {@code an index}. A {@code u} sounding "you" takes {@code a} ({@code a User}, {@code a
   * Unit}, {@code a URL}, but {@code an Update}); an initialism goes by its first letter's name
   * ({@code an SQL table}, {@code a UUID}).
   */
  public static String withArticle(String name) {
    return article(name) + " " + name;
  }

  /** The indefinite article of {@code name}: {@code "a"} or {@code "an"} (see {@link #withArticle}). */
  public static String article(String name) {
    return takesAn(name) ? "an" : "a";
  }

  private static boolean takesAn(String name) {
    if (name.isEmpty()) {
      return false;
    }
    char first = Character.toLowerCase(name.charAt(0));
    boolean initialism = name.length() > 1 && Character.isUpperCase(name.charAt(0))
        && Character.isUpperCase(name.charAt(1));
    if (initialism) {
      return "aefhilmnorsx".indexOf(first) >= 0; // letters whose names start with a vowel sound
    }
    if (first == 'u') {
      // "you" before a vowel (Uuid) or a consonant and a vowel (User, Unit); else "uh" (Update)
      String lower = name.toLowerCase(Locale.ROOT) + "  ";
      boolean you = "aeiou".indexOf(lower.charAt(1)) >= 0
          || "aeiouy".indexOf(lower.charAt(2)) >= 0;
      return !you;
    }
    return "aeio".indexOf(first) >= 0;
  }

  /**
   * Names a generated declare method's value parameter cannot take: its other parameters, and the
   * fields of the generated classes it reads, which the parameter would hide.
   */
  private static final Set<String> TAKEN = Set.of("ctx", "key", "provider", "children");

  /**
   * {@code Row} gives {@code row}; a name clashing with a parameter, a field or a keyword gives
   * {@code value}.
   */
  public static String parameterName(String upperCamel) {
    String s = upperCamel.substring(0, 1).toLowerCase(Locale.ROOT) + upperCamel.substring(1);
    return isIdentifier(s) && !TAKEN.contains(s) ? s : "value";
  }
}
