package io.cocoindex.processor.diag;

import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;

/**
 * One diagnostic, pointing at the most precise place known: an element, optionally one of its
 * annotations, optionally one value of it.
 */
public record Report(
    Message message,
    String text,
    Element element,
    AnnotationMirror annotation,
    AnnotationValue value) {}
