package io.cocoindex.processor;

import com.google.auto.service.AutoService;
import com.palantir.javapoet.JavaFile;
import io.cocoindex.processor.diag.Message;
import io.cocoindex.processor.diag.Reporter;
import io.cocoindex.processor.generate.AttachmentsGenerator;
import io.cocoindex.processor.generate.ChildHandlerFactoryGenerator;
import io.cocoindex.processor.generate.CodecGenerator;
import io.cocoindex.processor.generate.ContainerTargetGenerator;
import io.cocoindex.processor.generate.GeneratedFiles;
import io.cocoindex.processor.generate.RoundFiles;
import io.cocoindex.processor.generate.TargetApiGenerator;
import io.cocoindex.processor.mirror.AnnotationNames;
import io.cocoindex.processor.model.HandlerModel;
import io.cocoindex.processor.model.NestedContainerModel;
import io.cocoindex.processor.model.TargetClassModel;
import io.cocoindex.processor.validate.AttachmentValidator;
import io.cocoindex.processor.validate.HandlerValidator;
import io.cocoindex.processor.validate.HandlersWithTargetMethods;
import io.cocoindex.processor.validate.NameClaims;
import io.cocoindex.processor.validate.PlacementValidator;
import io.cocoindex.processor.validate.RecordValidator;
import io.cocoindex.processor.validate.TypeInspector;
import io.cocoindex.processor.validate.ValueTypeClassifier;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Filer;
import javax.annotation.processing.FilerException;
import javax.annotation.processing.Messager;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.ModuleElement;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.ElementFilter;
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

  /** What the processor does with a type. */
  enum Step {
    /** Validates a record's codec. */
    CODEC,
    /** Validates a root handler's API classes and child-handler factory. */
    TARGET,
    /** Validates a nested container handler's target class and child-handler factory. */
    NESTED,
    /** Validates a handler's attachments class. */
    ATTACHMENTS,
    /** Checks that the {@code @Key} and {@code @ChildHandler} of its members apply there. */
    PLACEMENT
  }

  private final Consumer<Element> beforeEachElement;
  /** The types waiting for a later round, by qualified name, with every step of theirs. */
  private final Map<String, Set<Step>> deferred = new LinkedHashMap<>();
  private final NameClaims claims = new NameClaims();
  /** The compilation's top-level types, its sources' and ours, as the rounds bring them. */
  private final Set<String> sourceTypes = new HashSet<>();
  /** {@link #javaLangShadowedIn} by package, for the current round. */
  private final Map<String, Set<String>> shadowedByPackage = new HashMap<>();

  private Elements elements;
  private Filer filer;
  private Messager messager;
  private RecordValidator records;
  private AttachmentValidator attachments;
  private HandlerValidator handlers;
  /** The compilation's handlers with attachments or nested containers, as the rounds bring them. */
  private HandlersWithTargetMethods withTargetMethods;

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
    records = new RecordValidator(inspector, classifier, claims);
    attachments = new AttachmentValidator(elements, inspector, classifier);
    withTargetMethods = new HandlersWithTargetMethods(elements, inspector);
    handlers = new HandlerValidator(
        elements, inspector, classifier, attachments, claims, sourceTypes, withTargetMethods);
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
    // Every step of a type is validated before any of its files is generated: a type with an
    // error anywhere generates nothing.
    Map<String, Set<Step>> subjects = new LinkedHashMap<>(deferred);
    deferred.clear();
    for (String annotation : AnnotationNames.CODEC_ANNOTATIONS) {
      for (Element e : annotated(round, present, annotation)) {
        addSubject(subjects, e, Step.CODEC);
      }
    }
    for (String annotation : List.of(AnnotationNames.ROOT_TARGET, AnnotationNames.CONTAINER_TARGET)) {
      for (Element e : annotated(round, present, annotation)) {
        addSubject(subjects, e, Step.TARGET);
      }
    }
    for (Element e : annotated(round, present, AnnotationNames.NESTED_CONTAINER)) {
      addSubject(subjects, e, Step.NESTED);
      noteTargetMethods(e);
    }
    for (Element e : annotated(round, present, AnnotationNames.ATTACHMENT)) {
      addSubject(subjects, e.getEnclosingElement(), Step.ATTACHMENTS);
      noteTargetMethods(e.getEnclosingElement());
    }
    for (String annotation : List.of(AnnotationNames.KEY, AnnotationNames.CHILD_HANDLER)) {
      for (Element e : annotated(round, present, annotation)) {
        addSubject(subjects, e.getEnclosingElement(), Step.PLACEMENT);
      }
    }
    RoundFiles files = new RoundFiles();
    shadowedByPackage.clear(); // a round may add types to a package
    for (Map.Entry<String, Set<Step>> s : subjects.entrySet()) {
      TypeElement type = elements.getTypeElement(s.getKey());
      if (type != null) {
        guarded(type, () -> process(type, s.getValue(), files));
      }
    }
    files.writeAll(filer, this::reportUnwritten);
    // Still unresolved when processing is over: javac reports the missing type itself, and an
    // error of ours on top would only repeat it.
    return false;
  }

  /** Before any container of the round is validated: its child handler may be this one. */
  private void noteTargetMethods(Element handler) {
    if (handler instanceof TypeElement t) {
      withTargetMethods.add(t);
    }
  }

  private static void addSubject(Map<String, Set<Step>> subjects, Element element, Step step) {
    if (element instanceof TypeElement t) {
      subjects
          .computeIfAbsent(t.getQualifiedName().toString(), n -> EnumSet.noneOf(Step.class))
          .add(step);
    }
  }

  /**
   * Validates every step of {@code type}, then queues the files of all of them, or none when
   * any reported an error; waits for a later round when a type one of them needs is unresolved.
   */
  private void process(TypeElement type, Set<Step> steps, RoundFiles files) {
    for (Step step : steps) {
      boolean unresolved =
          switch (step) {
            case CODEC -> records.isUnresolved(type);
            case TARGET, NESTED -> handlers.isUnresolved(type);
            case ATTACHMENTS -> attachments.isUnresolved(type);
            case PLACEMENT -> false;
          };
      if (unresolved) {
        deferred.put(type.getQualifiedName().toString(), steps);
        return;
      }
    }
    // A reporter per step: each validator stops on its own errors, not on another step's.
    List<Reporter> reporters = new ArrayList<>();
    List<Supplier<JavaFile>> outputs = new ArrayList<>();
    for (Step step : steps) {
      Reporter reporter = new Reporter();
      reporters.add(reporter);
      switch (step) {
        case CODEC -> records
            .validate(type, reporter)
            .ifPresent(m -> outputs.add(() -> new CodecGenerator().generate(m)));
        case TARGET -> handlers.validate(type, reporter).ifPresent(m -> outputs.addAll(files(m)));
        case NESTED -> handlers
            .validateNested(type, reporter)
            .ifPresent(m -> outputs.addAll(files(m)));
        case ATTACHMENTS -> attachments
            .validate(type, reporter)
            .ifPresent(m -> outputs.add(() -> new AttachmentsGenerator().generate(m)));
        case PLACEMENT -> PlacementValidator.validate(type, reporter);
      }
    }
    if (reporters.stream().noneMatch(Reporter::hasErrors)) {
      Set<String> shadowed = javaLangShadowedIn(elements.getPackageOf(type));
      boolean generated = readsJavaCompiler(elements.getModuleOf(type));
      outputs.forEach(
          build -> files.add(type, () -> GeneratedFiles.finish(build.get(), shadowed, generated)));
    }
    reporters.forEach(r -> r.flushTo(messager));
  }

  /**
   * The simple names of {@code java.lang} types that a type of {@code pkg} also has (a connector's
   * own {@code String} or {@code Class}): the files generated there name those by their
   * qualified names. Read on javac's thread, once per package and round.
   */
  private Set<String> javaLangShadowedIn(PackageElement pkg) {
    return shadowedByPackage.computeIfAbsent(pkg.getQualifiedName().toString(), name -> {
      Set<String> shadowed = new TreeSet<>();
      for (Element e : pkg.getEnclosedElements()) {
        String simple = e.getSimpleName().toString();
        TypeElement javaLang = elements.getTypeElement("java.lang." + simple);
        if (javaLang != null && javaLang.getModifiers().contains(Modifier.PUBLIC)) {
          shadowed.add(simple);
        }
      }
      return Set.copyOf(shadowed);
    });
  }

  /**
   * Whether code in {@code module} can name {@code javax.annotation.processing.Generated}: the
   * unnamed module reads every module, a named one only what it requires (directly, or through a
   * {@code requires transitive} of a module it requires, as {@code java.se} has).
   */
  private static boolean readsJavaCompiler(ModuleElement module) {
    if (module == null || module.isUnnamed()) {
      return true;
    }
    for (ModuleElement.RequiresDirective r :
        ElementFilter.requiresIn(module.getDirectives())) {
      if (givesJavaCompiler(r.getDependency(), new HashSet<>())) {
        return true;
      }
    }
    return false;
  }

  /** Whether a module requiring {@code m} reads {@code java.compiler} through it. */
  private static boolean givesJavaCompiler(ModuleElement m, Set<String> seen) {
    String name = m.getQualifiedName().toString();
    if (name.equals("java.compiler")) {
      return true;
    }
    if (!seen.add(name)) {
      return false;
    }
    for (ModuleElement.RequiresDirective r : ElementFilter.requiresIn(m.getDirectives())) {
      if (r.isTransitive() && givesJavaCompiler(r.getDependency(), seen)) {
        return true;
      }
    }
    return false;
  }

  /** The files of a validated root handler. */
  private static List<Supplier<JavaFile>> files(HandlerModel model) {
    List<Supplier<JavaFile>> files = new ArrayList<>();
    model
        .childHandlerFactory()
        .ifPresent(f -> files.add(() -> new ChildHandlerFactoryGenerator().generate(f)));
    files.add(() -> new TargetApiGenerator().generate(model.api()));
    if (model.api().container().isPresent()) {
      files.add(
          () -> new ContainerTargetGenerator().generate(TargetClassModel.ofRoot(model.api())));
    }
    return files;
  }

  /** The files of a validated nested container handler. */
  private static List<Supplier<JavaFile>> files(NestedContainerModel model) {
    List<Supplier<JavaFile>> files = new ArrayList<>();
    model
        .childHandlerFactory()
        .ifPresent(f -> files.add(() -> new ChildHandlerFactoryGenerator().generate(f)));
    files.add(() -> new ContainerTargetGenerator().generate(model.target()));
    return files;
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
