package io.cocoindex.processor.validate;

import io.cocoindex.processor.diag.Message;
import io.cocoindex.processor.diag.Reporter;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;

/**
 * The names of what the processor generates for one handler, as generated, each with the
 * declaration it comes from: two declarations generating one name would give code that does not
 * compile, which is reported on a declaration of the handler instead.
 */
final class GeneratedNames {

  /**
   * A declaration that makes the processor generate a name.
   *
   * @param description how a message names it, e.g. {@code @Attachment("row") on p.H.self()}
   * @param rename how to give it another name; null for a name the processor always generates
   * @param element where to report on it; null for a name the processor always generates
   * @param annotation the annotation to report on, or null
   * @param value the annotation value to report on, or null
   */
  record Origin(
      String description,
      String rename,
      Element element,
      AnnotationMirror annotation,
      AnnotationValue value) {

    /** A name every generated class of its kind has, whatever the user declares. */
    static Origin fixed(String description) {
      return new Origin(description, null, null, null, null);
    }
  }

  private final TypeElement handler;
  private final Map<String, Origin> names = new LinkedHashMap<>();
  private boolean clashed;

  /** @param handler the handler whose generated code this is; clashes are reported inside it */
  GeneratedNames(TypeElement handler) {
    this.handler = handler;
  }

  /**
   * Records that {@code origin} generates {@code name} (e.g. "the method p.Rows.declareRow"),
   * reporting a clash with an earlier origin of the same name.
   */
  void add(String name, Origin origin, Reporter reporter) {
    Origin first = names.putIfAbsent(name, origin);
    if (first == null) {
      return;
    }
    clashed = true;
    // Report on the later declaration if it belongs to this handler (a child handler's
    // attachment may be declared in another class, even outside the compilation).
    Origin at = isIn(origin.element()) ? origin : first;
    Origin other = at == origin ? first : origin;
    String fix =
        at.rename() == null
            ? other.rename()
            : other.rename() == null ? at.rename() : at.rename() + ", or " + other.rename();
    reporter.error(
        at.element() == null ? handler : at.element(),
        at.annotation(),
        at.value(),
        Message.GENERATED_NAME_CLASH,
        at.description(),
        other.description(),
        name,
        fix);
  }

  /** Whether any two origins generated one name. */
  boolean clashed() {
    return clashed;
  }

  private boolean isIn(Element element) {
    for (Element e = element; e != null; e = e.getEnclosingElement()) {
      if (e.equals(handler)) {
        return true;
      }
    }
    return false;
  }
}
