package io.cocoindex.processor;

import com.google.auto.service.AutoService;
import io.cocoindex.processor.diag.Message;
import io.cocoindex.processor.diag.Reporter;
import io.cocoindex.processor.generate.AttachmentsGenerator;
import io.cocoindex.processor.generate.ChildHandlerFactoryGenerator;
import io.cocoindex.processor.generate.CodecGenerator;
import io.cocoindex.processor.generate.ContainerTargetGenerator;
import io.cocoindex.processor.generate.RoundFiles;
import io.cocoindex.processor.generate.TargetApiGenerator;
import io.cocoindex.processor.mirror.AnnotationNames;
import io.cocoindex.processor.mirror.Mirrors;
import io.cocoindex.processor.model.HandlerModel;
import io.cocoindex.processor.validate.AttachmentValidator;
import io.cocoindex.processor.validate.HandlerValidator;
import io.cocoindex.processor.validate.NameClaims;
import io.cocoindex.processor.validate.RecordValidator;
import io.cocoindex.processor.validate.TypeInspector;
import io.cocoindex.processor.validate.ValueTypeClassifier;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Filer;
import javax.annotation.processing.FilerException;
import javax.annotation.processing.Messager;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;
import javax.tools.Diagnostic;

/**
 * The cocoindex annotation processor. Per annotated element: read the annotations through typed
 * mirrors, validate into a report, build an immutable model, and generate one file per generator
 * with the element as originating element. An element with errors generates nothing; an element
 * whose types are not resolved yet is retried in the next round.
 */
@AutoService(Processor.class)
public final class CocoIndexProcessor extends AbstractProcessor {

  /** What the processor does with one element. */
  enum Step {
    CODEC,
    TARGET,
    ATTACHMENTS
  }

  /** An element to process, kept by name across rounds when deferred. */
  private record Subject(String qualifiedName, Step step) {}

  private final Consumer<Element> beforeEachElement;
  private final Set<Subject> deferred = new LinkedHashSet<>();
  private final NameClaims claims = new NameClaims();
  /** The compilation's top-level types, its sources' and ours, as the rounds bring them. */
  private final Set<String> sourceTypes = new HashSet<>();

  private Elements elements;
  private Filer filer;
  private Messager messager;
  private RecordValidator records;
  private AttachmentValidator attachments;
  private HandlerValidator handlers;

  public CocoIndexProcessor() {
    this(e -> {});
  }

  /** For tests: {@code beforeEachElement} runs inside the per-element crash guard. */
  CocoIndexProcessor(Consumer<Element> beforeEachElement) {
    this.beforeEachElement = beforeEachElement;
  }

  @Override
  public synchronized void init(ProcessingEnvironment env) {
    super.init(env);
    elements = env.getElementUtils();
    filer = env.getFiler();
    messager = env.getMessager();
    TypeInspector inspector = new TypeInspector(env.getTypeUtils());
    ValueTypeClassifier classifier = new ValueTypeClassifier(env.getTypeUtils());
    records = new RecordValidator(inspector, classifier);
    attachments = new AttachmentValidator(elements, inspector, classifier);
    handlers =
        new HandlerValidator(elements, inspector, classifier, attachments, claims, sourceTypes);
  }

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return AnnotationNames.ALL;
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    // getElementsAnnotatedWith scans every root element: ask only for the annotations javac says
    // this round carries (none in the rounds that enter the generated files).
    Map<String, TypeElement> present = new HashMap<>();
    for (TypeElement a : annotations) {
      present.put(a.getQualifiedName().toString(), a);
    }
    for (Element e : round.getRootElements()) {
      if (e instanceof TypeElement t) {
        sourceTypes.add(t.getQualifiedName().toString());
      }
    }
    Set<Subject> subjects = new LinkedHashSet<>(deferred);
    deferred.clear();
    for (String annotation : AnnotationNames.CODEC_ANNOTATIONS) {
      for (Element e : annotated(round, present, annotation)) {
        if (e instanceof TypeElement t) {
          subjects.add(new Subject(t.getQualifiedName().toString(), Step.CODEC));
        }
      }
    }
    for (String annotation : List.of(AnnotationNames.ROOT_TARGET, AnnotationNames.CONTAINER_TARGET)) {
      for (Element e : annotated(round, present, annotation)) {
        if (e instanceof TypeElement t) {
          subjects.add(new Subject(t.getQualifiedName().toString(), Step.TARGET));
        }
      }
    }
    for (Element e : annotated(round, present, AnnotationNames.ATTACHMENT)) {
      if (e.getEnclosingElement() instanceof TypeElement t) {
        subjects.add(new Subject(t.getQualifiedName().toString(), Step.ATTACHMENTS));
      }
    }
    RoundFiles files = new RoundFiles();
    for (Subject s : subjects) {
      TypeElement type = elements.getTypeElement(s.qualifiedName());
      if (type != null) {
        guarded(type, () -> process(type, s, files));
      }
    }
    files.writeAll(filer, this::reportUnwritten);
    for (Element e : annotated(round, present, AnnotationNames.KEY)) {
      guarded(e, () -> checkKeyPlacement(e));
    }
    for (Element e : annotated(round, present, AnnotationNames.CHILD_HANDLER)) {
      guarded(e, () -> checkChildHandlerPlacement(e));
    }
    // Still unresolved when processing is over: javac reports the missing type itself, and an
    // error of ours on top would only repeat it.
    return false;
  }

  private void process(TypeElement type, Subject subject, RoundFiles files) {
    boolean unresolved =
        switch (subject.step()) {
          case CODEC -> records.isUnresolved(type);
          case TARGET -> handlers.isUnresolved(type);
          case ATTACHMENTS -> attachments.isUnresolved(type);
        };
    if (unresolved) {
      deferred.add(subject);
      return;
    }
    Reporter reporter = new Reporter();
    switch (subject.step()) {
      case CODEC -> records
          .validate(type, reporter)
          .ifPresent(m -> files.add(type, () -> new CodecGenerator().generate(m)));
      case TARGET -> handlers.validate(type, reporter).ifPresent(m -> generate(type, m, files));
      case ATTACHMENTS -> attachments
          .validate(type, reporter)
          .ifPresent(m -> files.add(type, () -> new AttachmentsGenerator().generate(m)));
    }
    reporter.flushTo(messager);
  }

  private static void generate(TypeElement type, HandlerModel model, RoundFiles files) {
    model
        .childHandlerFactory()
        .ifPresent(f -> files.add(type, () -> new ChildHandlerFactoryGenerator().generate(f)));
    files.add(type, () -> new TargetApiGenerator().generate(model.api()));
    if (model.api().container().isPresent()) {
      files.add(type, () -> new ContainerTargetGenerator().generate(model.api()));
    }
  }

  private void checkKeyPlacement(Element component) {
    Element record = component.getEnclosingElement();
    if (record.getKind() != ElementKind.RECORD
        || !Mirrors.has(record, AnnotationNames.TARGET_VALUE)) {
      Reporter reporter = new Reporter();
      reporter.error(
          TypeInspector.positionOf(component),
          Message.WRONG_ELEMENT_KIND,
          "@Key applies to components of @TargetValue records, but "
              + record
              + " is not annotated @TargetValue: annotate it, or remove @Key");
      reporter.flushTo(messager);
    }
  }

  private void checkChildHandlerPlacement(Element method) {
    Element type = method.getEnclosingElement();
    if (!Mirrors.has(type, AnnotationNames.CONTAINER_TARGET)) {
      Reporter reporter = new Reporter();
      reporter.error(
          method,
          Mirrors.find(method, AnnotationNames.CHILD_HANDLER).orElseThrow(),
          Message.WRONG_ELEMENT_KIND,
          "@ChildHandler applies to methods of @ContainerTarget handlers, but "
              + type
              + " is not annotated @ContainerTarget: annotate it, or remove @ChildHandler");
      reporter.flushTo(messager);
    }
  }

  /** Runs {@code work}, reporting a crash on {@code element} as an internal error. */
  private void guarded(Element element, Runnable work) {
    try {
      beforeEachElement.accept(element);
      work.run();
    } catch (RuntimeException | LinkageError | AssertionError e) {
      reportCrash(element, e);
    }
  }

  /** Reports a generated file that could not be written, on the element it was generated for. */
  private void reportUnwritten(Element origin, String generated, Throwable cause) {
    if (cause instanceof FilerException refused) {
      messager.printMessage(
          Diagnostic.Kind.ERROR,
          Message.GENERATED_TYPE_TAKEN.format(generated, origin, refused.getMessage()),
          origin);
    } else {
      reportCrash(origin, cause);
    }
  }

  /** Reports {@code crash} as an internal error on {@code element}, with its stack trace. */
  private void reportCrash(Element element, Throwable crash) {
    StringWriter trace = new StringWriter();
    crash.printStackTrace(new PrintWriter(trace));
    messager.printMessage(
        Diagnostic.Kind.ERROR, Message.INTERNAL_ERROR.format(element, trace), element);
  }

  /** Every element with {@code annotation} in this round, given the annotations it carries. */
  private static List<Element> annotated(
      RoundEnvironment round, Map<String, TypeElement> present, String annotation) {
    TypeElement type = present.get(annotation);
    return type == null ? List.of() : new ArrayList<>(round.getElementsAnnotatedWith(type));
  }
}
