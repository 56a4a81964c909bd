package io.cocoindex.processor.diag;

import java.util.ArrayList;
import java.util.List;
import javax.annotation.processing.Messager;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;

/**
 * Collects the diagnostics of one element before anything is printed or generated, so an element
 * with errors generates nothing (and its errors are printed together).
 */
public final class Reporter {
  private final List<Report> reports = new ArrayList<>();

  public void error(Element element, Message message, Object... args) {
    reports.add(new Report(message, message.format(args), element, null, null));
  }

  public void error(
      Element element, AnnotationMirror annotation, Message message, Object... args) {
    reports.add(new Report(message, message.format(args), element, annotation, null));
  }

  public void error(
      Element element,
      AnnotationMirror annotation,
      AnnotationValue value,
      Message message,
      Object... args) {
    reports.add(new Report(message, message.format(args), element, annotation, value));
  }

  /**
   * A warning on {@code element}, unless the element says {@code @SuppressWarnings} of its id.
   * Warnings do not stop generation.
   */
  public void warning(
      Element element, AnnotationMirror annotation, Message message, Object... args) {
    if (!message.isSuppressedBy(element.getAnnotation(SuppressWarnings.class))) {
      reports.add(new Report(message, message.format(args), element, annotation, null));
    }
  }

  /**
   * Adds the reports of {@code other}, about an element outside this compilation, on {@code
   * element} and {@code annotation} instead: javac can only point at source.
   */
  public void addAllOn(Reporter other, Element element, AnnotationMirror annotation) {
    for (Report r : other.reports) {
      reports.add(new Report(r.message(), r.text(), element, annotation, null));
    }
  }

  /** Adds the reports of {@code other}, on their own elements. */
  public void addAll(Reporter other) {
    reports.addAll(other.reports);
  }

  /** Whether an error was reported (a warning is not one). */
  public boolean hasErrors() {
    return reports.stream().anyMatch(r -> r.message().kind() == Diagnostic.Kind.ERROR);
  }

  /** Prints every collected report and forgets them. */
  public void flushTo(Messager messager) {
    for (Report r : reports) {
      if (r.value() != null) {
        messager.printMessage(
            r.message().kind(), r.text(), r.element(), r.annotation(), r.value());
      } else if (r.annotation() != null) {
        messager.printMessage(r.message().kind(), r.text(), r.element(), r.annotation());
      } else {
        messager.printMessage(r.message().kind(), r.text(), r.element());
      }
    }
    reports.clear();
  }
}
