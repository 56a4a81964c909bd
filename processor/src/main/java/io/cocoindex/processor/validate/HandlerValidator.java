package io.cocoindex.processor.validate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;
import io.cocoindex.processor.diag.Message;
import io.cocoindex.processor.diag.Reporter;
import io.cocoindex.processor.mirror.AnnotationNames;
import io.cocoindex.processor.mirror.AttachmentAnnotation;
import io.cocoindex.processor.mirror.Mirrors;
import io.cocoindex.processor.mirror.TargetAnnotation;
import io.cocoindex.processor.model.AttachmentModel;
import io.cocoindex.processor.model.AttachmentsModel;
import io.cocoindex.processor.model.ChildHandlerFactoryModel;
import io.cocoindex.processor.model.DeclaredTarget;
import io.cocoindex.processor.model.HandlerModel;
import io.cocoindex.processor.model.NestedContainerModel;
import io.cocoindex.processor.model.NestedTarget;
import io.cocoindex.processor.model.TargetClassModel;
import io.cocoindex.processor.model.TargetApiModel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;

/** Validates a {@code @RootTarget} or {@code @ContainerTarget} handler into its models. */
public final class HandlerValidator {
  /** What a target annotation applies to, in {@link Message#WRONG_ELEMENT_KIND}. */
  private static final String HANDLER_CLASSES =
      "handler classes implementing TargetHandler<V, R, A>";

  private static final String[] TYPE_PARAMETERS = {"value type V", "tracking record type R", "action type A"};

  private final Elements elements;
  private final TypeInspector inspector;
  private final ValueTypeClassifier classifier;
  private final AttachmentValidator attachments;
  private final NameClaims claims;
  private final Set<String> sourceTypes;
  private final HandlersWithTargetMethods withTargetMethods;

  /**
   * @param sourceTypes the qualified names of the compilation's own top-level types so far (the
   *     processor adds each round's), which a generated class must not replace
   * @param withTargetMethods the compilation's handlers giving target classes methods so far (the
   *     processor adds each round's), which a child handler's declared return type may hide
   */
  public HandlerValidator(Elements elements, TypeInspector inspector,
      ValueTypeClassifier classifier, AttachmentValidator attachments, NameClaims claims,
      Set<String> sourceTypes, HandlersWithTargetMethods withTargetMethods) {
    this.elements = elements;
    this.inspector = inspector;
    this.classifier = classifier;
    this.attachments = attachments;
    this.claims = claims;
    this.sourceTypes = sourceTypes;
    this.withTargetMethods = withTargetMethods;
  }

  /**
   * Whether a type the handler's shape depends on is not resolved yet (defer): its supertypes, a
   * type inside its V, R or A, its child handler and that handler's type arguments, the handlers
   * of its attachments and of its child handler's.
   */
  public boolean isUnresolved(TypeElement type) {
    if (inspector.containsError(type.getSuperclass())
        || type.getInterfaces().stream().anyMatch(inspector::containsError)
        || hasUnresolvedTypeArguments(type.asType())
        || attachments.isUnresolved(type)) {
      return true;
    }
    if (isUnresolved(TargetAnnotation.read(elements, type))
        || isUnresolved(TargetAnnotation.readNested(elements, type))) {
      return true;
    }
    return childHandlerMethods(type).stream()
        .anyMatch(
            m ->
                inspector.containsError(m.getReturnType())
                    || m.getParameters().stream().anyMatch(p -> inspector.containsError(p.asType()))
                    || hasUnresolvedTypeArguments(m.getReturnType())
                    || (inspector.types().asElement(m.getReturnType()) instanceof TypeElement child
                        && (attachments.isUnresolved(child)
                            || isUnresolved(TargetAnnotation.readNested(elements, child)))));
  }

  private boolean isUnresolved(Optional<TargetAnnotation> target) {
    return target.isPresent()
        && (target.get().unresolved()
            || target.get().childValue().map(inspector::containsError).orElse(false));
  }

  private boolean hasUnresolvedTypeArguments(TypeMirror handlerType) {
    return inspector.handlerTypeArguments(handlerType).stream()
        .flatMap(List::stream)
        .anyMatch(classifier::isUnresolvedHandlerType);
  }

  public Optional<HandlerModel> validate(TypeElement type, Reporter reporter) {
    TargetAnnotation target = TargetAnnotation.read(elements, type).orElseThrow();
    // The container annotation is the one read: a @RootTarget beside it would be ignored.
    Optional<AnnotationMirror> root = Mirrors.find(type, AnnotationNames.ROOT_TARGET);
    if (target.isContainer() && root.isPresent()) {
      reporter.error(
          type,
          root.get(),
          Message.WRONG_ELEMENT_KIND,
          "@RootTarget",
          "handler classes whose target states hold no children",
          type.getQualifiedName(),
          "is a @ContainerTarget, which registers it as a root already",
          "remove @RootTarget");
      return Optional.empty();
    }
    Optional<List<TypeMirror>> args = handlerTypeArguments(type, target, reporter);
    if (args.isEmpty()) {
      return Optional.empty();
    }
    TypeMirror value = args.get().get(0);
    TypeMirror action = args.get().get(2);
    if (!TypeInspector.isReachable(type)) {
      reporter.error(type, target.mirror(), Message.INACCESSIBLE_ELEMENT, type.getQualifiedName());
    }
    checkName(type, target, "provider", target.provider(), reporter);
    checkName(type, target, "name", target.name(), reporter);
    if (!target.api().isEmpty()) {
      checkName(type, target, "api", target.api(), reporter);
    }
    target.child().ifPresent(child -> checkName(type, target, "child", child, reporter));
    boolean primitiveChildValue =
        target.childValue()
            .map(v -> checkChildValueIsAClass(type, target, v, reporter))
            .orElse(false);
    if (!target.provider().isEmpty()) {
      claims
          .claim("provider " + target.provider(), type.getQualifiedName().toString())
          .ifPresent(
              other ->
                  reporter.error(
                      type,
                      target.mirror(),
                      valueOf(target, "provider"),
                      Message.DUPLICATE_PROVIDER,
                      target.provider(),
                      type.getQualifiedName(),
                      other));
    }
    Optional<ContainerPart> part = Optional.empty();
    if (target.isContainer() && !primitiveChildValue) {
      part = containerPart(type, target, action, reporter, Set.of());
      if (part.isEmpty()) {
        return Optional.empty();
      }
    }
    if (reporter.hasErrors()) {
      return Optional.empty();
    }
    Optional<ChildHandlerFactoryModel> factory = part.map(ContainerPart::factory);
    Optional<TargetApiModel.ContainerModel> container =
        part.map(
            p ->
                new TargetApiModel.ContainerModel(
                    ClassName.get(ClassName.get(type).packageName(), target.name() + "Target"),
                    p.child(),
                    p.childAttachments(),
                    p.nested()));
    TypeElement childHandler = part.map(ContainerPart::childHandler).orElse(null);
    // Invalid attachments of the handler itself are reported where its @Attachment methods are
    // validated; without them the API would silently lack their declare methods.
    Optional<List<AttachmentModel>> ownAttachments = attachmentsOf(type, reporter);
    if (ownAttachments.isEmpty()) {
      return Optional.empty();
    }
    if (reportUnreachable(type, target, value, action, ownAttachments.get(), childHandler,
        container.map(TargetApiModel.ContainerModel::childAttachments).orElse(List.of()),
        reporter)) {
      return Optional.empty();
    }
    String pkg = ClassName.get(type).packageName();
    ClassName api = ClassName.get(
        pkg, target.api().isEmpty() ? Identifiers.plural(target.name()) : target.api());
    TargetApiModel model =
        new TargetApiModel(
            ClassName.get(type),
            TypeInspector.anyInstanceOf(type),
            api,
            target.provider(),
            new DeclaredTarget(target.name(), TypeName.get(value), KeyModels.of(value)),
            ownAttachments.get(),
            container,
            TypeInspector.isPublic(type),
            type);
    if (namesClash(type, target, model, factory, part, reporter)) {
      return Optional.empty();
    }
    List<ClassName> generated =
        container.isPresent() ? List.of(api, container.get().targetClass()) : List.of(api);
    if (claimClasses(type, target, generated, reporter)) {
      return Optional.empty();
    }
    return Optional.of(new HandlerModel(model, factory));
  }

  /**
   * Validates a {@code @NestedContainer} handler into the target class of its containers and its
   * child-handler factory.
   */
  public Optional<NestedContainerModel> validateNested(TypeElement type, Reporter reporter) {
    return validateNested(type, reporter, Set.of(), true);
  }

  /**
   * As {@link #validateNested(TypeElement, Reporter)}; {@code visiting} holds the nested
   * container handlers whose validation is under way further up: nesting may recur (a
   * subdirectory's entries are entries again), and such a handler's validity is what that call
   * decides, so it is not validated again below it. Only the handler's own step claims its
   * generated class names ({@code claim}): a parent validating it first would otherwise get the
   * handler's clash reported on itself.
   */
  private Optional<NestedContainerModel> validateNested(
      TypeElement type, Reporter reporter, Set<TypeElement> visiting, boolean claim) {
    TargetAnnotation target = TargetAnnotation.readNested(elements, type).orElseThrow();
    Optional<List<TypeMirror>> args = handlerTypeArguments(type, target, reporter);
    if (args.isEmpty()) {
      return Optional.empty();
    }
    TypeMirror action = args.get().get(2);
    if (!TypeInspector.isReachable(type)) {
      reporter.error(type, target.mirror(), Message.INACCESSIBLE_ELEMENT, type.getQualifiedName());
    }
    checkName(type, target, "name", target.name(), reporter);
    checkName(type, target, "child", target.child().orElseThrow(), reporter);
    if (checkChildValueIsAClass(type, target, target.childValue().orElseThrow(), reporter)) {
      return Optional.empty();
    }
    Optional<TargetAnnotation> root =
        TargetAnnotation.read(elements, type).filter(TargetAnnotation::isContainer);
    if (root.isPresent() && !sameChildren(root.get(), target)) {
      reporter.error(
          type,
          target.mirror(),
          Message.NESTED_CHILDREN_DIFFER,
          type.getQualifiedName(),
          describeChildren(root.get()),
          describeChildren(target));
      return Optional.empty();
    }
    Set<TypeElement> below = new HashSet<>(visiting);
    below.add(type);
    Optional<ContainerPart> part = containerPart(type, target, action, reporter, below);
    if (part.isEmpty() || reporter.hasErrors()) {
      return Optional.empty();
    }
    PackageElement pkg = TypeInspector.packageOf(type);
    String handler = "@NestedContainer handler " + type.getQualifiedName();
    boolean unreachable = reportUnreachable(
        type, target.mirror(), "the action type A of " + handler + " is " + action, action, pkg,
        reporter);
    TypeMirror childValue = target.childValue().orElseThrow();
    unreachable |= reportUnreachable(
        type, target.mirror(), "the childValue of " + handler + " is " + childValue, childValue,
        pkg, reporter);
    for (AttachmentModel a : part.get().childAttachments()) {
      unreachable |= reportUnreachableAttachment(part.get().childHandler(), a, pkg, reporter);
    }
    if (unreachable) {
      return Optional.empty();
    }
    TargetClassModel model =
        new TargetClassModel(
            nestedTargetClass(type, target),
            target.name(),
            ClassName.get(type),
            Optional.empty(),
            part.get().child(),
            part.get().childAttachments(),
            part.get().nested(),
            TypeInspector.isPublic(type),
            type);
    // A handler that is also a @ContainerTarget has its factory generated by that step.
    Optional<ChildHandlerFactoryModel> factory =
        root.isPresent() ? Optional.empty() : Optional.of(part.get().factory());
    if (nestedNamesClash(type, target, model, factory, part.get(), reporter)
        || (claim && claimClasses(type, target, List.of(model.targetClass()), reporter))) {
      return Optional.empty();
    }
    return Optional.of(new NestedContainerModel(model, factory));
  }

  /**
   * Whether the {@code @ChildHandler} of the valid nested container handler {@code handler}
   * returns its own class: its containers' children are then handled as the children it is among.
   */
  private boolean isRecurring(TypeElement handler) {
    List<ExecutableElement> methods = childHandlerMethods(handler);
    return methods.size() == 1
        && handler.equals(
            inspector.types().asElement(asMemberOf(handler, methods.get(0)).getReturnType()));
  }

  /** The class {@code <name>Target} generated for a nested container handler. */
  private static ClassName nestedTargetClass(TypeElement type, TargetAnnotation nested) {
    return ClassName.get(ClassName.get(type).packageName(), nested.name() + "Target");
  }

  private boolean sameChildren(TargetAnnotation a, TargetAnnotation b) {
    return a.child().equals(b.child())
        && inspector.types().isSameType(a.childValue().orElseThrow(), b.childValue().orElseThrow());
  }

  private static String describeChildren(TargetAnnotation t) {
    return t.child().orElseThrow() + " (" + t.childValue().orElseThrow() + ")";
  }

  /**
   * The children of a container handler, root or nested, as its generated classes declare them:
   * its {@code @ChildHandler} method and the factory calling it, the child handler's attachments
   * and, when that handler is a {@code @NestedContainer}, the nested containers among the
   * children. Empty when invalid: the errors are reported here, or on the child handler when the
   * compilation validates it in a step of its own.
   */
  private Optional<ContainerPart> containerPart(
      TypeElement type,
      TargetAnnotation target,
      TypeMirror action,
      Reporter reporter,
      Set<TypeElement> visiting) {
    Optional<ExecutableElement> method = childHandler(type, target, action, reporter);
    if (method.isEmpty()) {
      return Optional.empty();
    }
    TypeMirror childValue = target.childValue().orElseThrow();
    TypeMirror childHandlerType = asMemberOf(type, method.get()).getReturnType();
    TypeElement childHandler = (TypeElement) inspector.types().asElement(childHandlerType);
    warnOfHiddenTargetMethods(type, target, method.get(), childHandlerType, reporter);
    Optional<List<AttachmentModel>> childAttachments =
        childAttachments(method.get(), childHandler, reporter);
    if (childAttachments.isEmpty()) {
      return Optional.empty();
    }
    Optional<NestedTarget> nested = Optional.empty();
    Optional<TargetAnnotation> nestedAnnotation =
        TargetAnnotation.readNested(elements, childHandler);
    if (nestedAnnotation.isPresent()) {
      AnnotationMirror at = Mirrors.find(method.get(), AnnotationNames.CHILD_HANDLER).orElseThrow();
      PackageElement pkg = TypeInspector.packageOf(type);
      PackageElement childPkg = TypeInspector.packageOf(childHandler);
      if (!pkg.equals(childPkg)) {
        ClassName nestedTarget = nestedTargetClass(childHandler, nestedAnnotation.get());
        reporter.error(
            method.get(),
            at,
            Message.NESTED_CONTAINER_IN_OTHER_PACKAGE,
            type.getSimpleName() + "." + method.get().getSimpleName() + "()",
            childHandler.getQualifiedName(),
            childPkg.getQualifiedName(),
            type.getQualifiedName(),
            pkg.getQualifiedName(),
            nestedTarget.simpleName(),
            childHandler.getSimpleName(),
            pkg.getQualifiedName(),
            childPkg.getQualifiedName());
        return Optional.empty();
      }
      if (!visiting.contains(childHandler)) {
        Reporter childReports = new Reporter();
        if (validateNested(childHandler, childReports, visiting, false).isEmpty()) {
          // In the compilation, its own step reports its errors on its source.
          if (!isInCompilation(childHandler)) {
            reporter.addAllOn(childReports, method.get(), at);
          }
          return Optional.empty();
        }
      }
      nested =
          Optional.of(
              new NestedTarget(
                  new DeclaredTarget(
                      nestedAnnotation.get().name(),
                      TypeName.get(childValue),
                      KeyModels.of(childValue)),
                  nestedTargetClass(childHandler, nestedAnnotation.get()),
                  TypeName.get(nestedAnnotation.get().childValue().orElseThrow()),
                  isRecurring(childHandler),
                  TypeInspector.isPublic(childHandler)));
    }
    ChildHandlerFactoryModel factory =
        new ChildHandlerFactoryModel(
            ClassName.get(type),
            TypeInspector.anyInstanceOf(type),
            TypeInspector.sibling(type, "ChildHandlerFactory"),
            TypeName.get(action),
            TypeName.get(childValue),
            method.get().getSimpleName().toString(),
            TargetAnnotation.readNested(elements, type).isPresent(),
            type);
    return Optional.of(
        new ContainerPart(
            method.get(),
            factory,
            childHandler,
            new DeclaredTarget(
                target.child().orElseThrow(), TypeName.get(childValue), KeyModels.of(childValue)),
            childAttachments.get(),
            nested));
  }

  /**
   * Warns (COCO-030) when the {@code @ChildHandler} method {@code method} is declared to return
   * an interface or abstract class that handlers of the compilation giving a target class methods
   * implement: whichever of them it returns, the target class lacks those methods.
   */
  private void warnOfHiddenTargetMethods(TypeElement type, TargetAnnotation target,
      ExecutableElement method, TypeMirror declared, Reporter reporter) {
    List<HandlersWithTargetMethods.Hidden> hidden =
        withTargetMethods.behind(declared, target.childValue().orElseThrow());
    if (hidden.isEmpty()) {
      return;
    }
    String name = method.getSimpleName() + "()";
    String fix = hidden.size() == 1
        ? "declare " + name + " to return " + hidden.get(0).handler().getSimpleName()
            + " if it returns one"
        : "declare " + name + " to return the one of them it returns";
    reporter.warning(
        method,
        Mirrors.find(method, AnnotationNames.CHILD_HANDLER).orElseThrow(),
        Message.CHILD_HANDLER_HIDES_TARGET_METHODS,
        type.getSimpleName() + "." + name,
        declared,
        target.name() + "Target",
        String.join(" or ", hidden.stream()
            .map(h -> h.handler().getQualifiedName() + " (" + String.join(", ", h.methods()) + ")")
            .toList()),
        fix,
        name);
  }

  /**
   * The children of a container handler as validated.
   *
   * @param method its {@code @ChildHandler} method
   * @param factory the factory calling it
   * @param childHandler the handler class the method returns
   * @param child what {@code declare<Child>} declares
   * @param childAttachments the child handler's attachments
   * @param nested the nested containers among the children
   */
  private record ContainerPart(
      ExecutableElement method,
      ChildHandlerFactoryModel factory,
      TypeElement childHandler,
      DeclaredTarget child,
      List<AttachmentModel> childAttachments,
      Optional<NestedTarget> nested) {}

  /**
   * The handler's {@code V}, {@code R}, {@code A}; empty when it is no handler class or they are
   * not concrete (reported), or cannot be serialized (reported, and the rest still checked).
   */
  private Optional<List<TypeMirror>> handlerTypeArguments(
      TypeElement type, TargetAnnotation target, Reporter reporter) {
    String at = "@" + target.simpleName();
    // An enum is a class too: a stateless handler may well be a singleton enum.
    if (type.getKind() != ElementKind.CLASS && type.getKind() != ElementKind.RECORD
        && type.getKind() != ElementKind.ENUM) {
      reporter.error(
          type,
          target.mirror(),
          Message.WRONG_ELEMENT_KIND,
          at,
          HANDLER_CLASSES,
          type.getQualifiedName(),
          "is " + RecordValidator.article(type.getKind()),
          "annotate the class implementing it");
      return Optional.empty();
    }
    Optional<List<TypeMirror>> args = inspector.handlerTypeArguments(type.asType());
    if (args.isEmpty()) {
      reporter.error(
          type,
          target.mirror(),
          Message.WRONG_ELEMENT_KIND,
          at,
          HANDLER_CLASSES,
          type.getQualifiedName(),
          "does not implement TargetHandler",
          "implement it, or remove " + at);
      return Optional.empty();
    }
    if (args.get().isEmpty()) {
      reporter.error(
          type,
          target.mirror(),
          Message.UNRESOLVED_HANDLER_TYPES,
          type.getQualifiedName(),
          rawSupertype(type)
              .map(raw -> "extends the raw type " + raw + ", which erases the type arguments of"
                  + " its TargetHandler (write them: "
                  + inspector.types().asElement(raw).getSimpleName() + "<...>)")
              .orElse("implements the raw type TargetHandler"));
      return Optional.empty();
    }
    for (int i = 0; i < 3; i++) {
      if (!inspector.isConcrete(args.get().get(i))) {
        reporter.error(
            type,
            target.mirror(),
            Message.UNRESOLVED_HANDLER_TYPES,
            type.getQualifiedName(),
            "has " + args.get().get(i) + " as its " + TYPE_PARAMETERS[i]);
        return Optional.empty();
      }
    }
    for (ValueTypeClassifier.HandlerTypeProblem p : classifier.handlerTypeProblems(args.get())) {
      reporter.error(
          type,
          target.mirror(),
          Message.UNSERIALIZABLE_HANDLER_TYPE,
          at + " handler " + type.getQualifiedName(),
          p.type(),
          p.roles(),
          p.problem());
    }
    return args;
  }

  /**
   * Claims the generated API and target classes for {@code type}; whether one was another
   * handler's already, or a type someone wrote (reported).
   */
  private boolean claimClasses(
      TypeElement type, TargetAnnotation target, List<ClassName> generated, Reporter reporter) {
    for (ClassName g : generated) {
      Optional<String> other =
          claims.claim("class " + g.canonicalName(), type.getQualifiedName().toString());
      if (other.isPresent()) {
        reporter.error(
            type,
            target.mirror(),
            Message.DUPLICATE_API_CLASS,
            g.canonicalName(),
            type.getQualifiedName(),
            other.get(),
            target.isNested()
                ? "set name = \"...\" of @NestedContainer to another noun"
                : "set api = \"...\" on one of them to a distinct class name");
        return true;
      }
      // A type of this compilation by that name would be replaced (javac fails the file's
      // creation); a class file of an earlier build's output is regenerated as usual.
      if (sourceTypes.contains(g.canonicalName())) {
        reporter.error(
            type,
            target.mirror(),
            Message.GENERATED_CLASS_EXISTS,
            g.canonicalName(),
            "@" + target.mirror().getAnnotationType().asElement().getSimpleName(),
            type.getQualifiedName());
        return true;
      }
    }
    return false;
  }

  /** The generic class or interface {@code type} extends or implements raw, if any. */
  private Optional<TypeMirror> rawSupertype(TypeElement type) {
    List<TypeMirror> queue = new ArrayList<>(inspector.types().directSupertypes(type.asType()));
    while (!queue.isEmpty()) {
      TypeMirror t = queue.remove(0);
      if (inspector.isRaw(t)) {
        TypeElement e = (TypeElement) inspector.types().asElement(t);
        return e.getQualifiedName().contentEquals(TypeInspector.TARGET_HANDLER)
            ? Optional.empty()
            : Optional.of(t);
      }
      queue.addAll(inspector.types().directSupertypes(t));
    }
    return Optional.empty();
  }

  /**
   * Reports (COCO-024) each type the generated API, target and factory classes name that code in
   * the handler's package cannot: V; a container's A and childValue; the value type of each
   * attachment declared through them. Whether any was.
   */
  private boolean reportUnreachable(
      TypeElement type,
      TargetAnnotation target,
      TypeMirror value,
      TypeMirror action,
      List<AttachmentModel> own,
      TypeElement childHandler,
      List<AttachmentModel> childAttachments,
      Reporter reporter) {
    PackageElement pkg = TypeInspector.packageOf(type);
    String handler = "@" + target.simpleName() + " handler " + type.getQualifiedName();
    boolean any = reportUnreachable(
        type, target.mirror(), "the value type V of " + handler + " is " + value, value, pkg,
        reporter);
    if (target.isContainer()) {
      any |= reportUnreachable(
          type, target.mirror(), "the action type A of " + handler + " is " + action, action, pkg,
          reporter);
      TypeMirror childValue = target.childValue().orElseThrow();
      any |= reportUnreachable(
          type, target.mirror(), "the childValue of " + handler + " is " + childValue, childValue,
          pkg, reporter);
    }
    for (AttachmentModel a : own) {
      any |= reportUnreachableAttachment(type, a, pkg, reporter);
    }
    for (AttachmentModel a : childAttachments) {
      any |= reportUnreachableAttachment(childHandler, a, pkg, reporter);
    }
    return any;
  }

  private boolean reportUnreachableAttachment(
      TypeElement owner, AttachmentModel a, PackageElement pkg, Reporter reporter) {
    ExecutableElement m = attachments.methodOf(owner, a);
    TypeMirror value = inspector.handlerTypeArguments(m.getReturnType()).orElseThrow().get(0);
    return reportUnreachable(
        m,
        null,
        "the value type V of the handler returned by @Attachment " + owner.getQualifiedName()
            + "." + m.getSimpleName() + "() is " + value,
        value,
        pkg,
        reporter);
  }

  private static boolean reportUnreachable(
      Element at,
      AnnotationMirror annotation,
      String what,
      TypeMirror type,
      PackageElement pkg,
      Reporter reporter) {
    Optional<TypeInspector.Unreachable> u = TypeInspector.unreachableFrom(type, pkg);
    u.filter(x -> !x.reportedOnItself()).ifPresent(
        x -> reporter.error(
            at,
            annotation,
            Message.INACCESSIBLE_TYPE,
            what,
            TypeInspector.Unreachable.describe(pkg),
            x.offender().getQualifiedName(),
            x.why(),
            x.fix()));
    return u.isPresent();
  }

  /**
   * The attachments of the handler a {@code @ChildHandler} method returns, which the target class
   * declares into, own and inherited; empty when they are invalid. Their errors are reported on
   * the child handler when the compilation has its source (here when it only inherits
   * attachments: no step of its own runs), and on the {@code @ChildHandler} method otherwise.
   */
  private Optional<List<AttachmentModel>> childAttachments(
      ExecutableElement method, TypeElement childHandler, Reporter reporter) {
    Reporter childReports = new Reporter();
    Optional<AttachmentsModel> model = attachments.validate(childHandler, childReports);
    if (model.isEmpty() && !isInCompilation(childHandler)) {
      reporter.addAllOn(
          childReports, method, Mirrors.find(method, AnnotationNames.CHILD_HANDLER).orElseThrow());
    } else if (attachments.attachmentMethods(childHandler).isEmpty()) {
      reporter.addAll(childReports);
    }
    return model.map(AttachmentsModel::attachments);
  }

  /**
   * The attachments of the root handler {@code type}, own and inherited; empty when invalid, the
   * errors reported where its {@code @Attachment} methods are validated, or here when it
   * declares none and only inherits some (then its own attachments step does not run).
   */
  private Optional<List<AttachmentModel>> attachmentsOf(TypeElement type, Reporter reporter) {
    Reporter reports = new Reporter();
    Optional<AttachmentsModel> model = attachments.validate(type, reports);
    if (attachments.attachmentMethods(type).isEmpty()) {
      reporter.addAll(reports);
    }
    return model.map(AttachmentsModel::attachments);
  }

  private boolean isInCompilation(TypeElement type) {
    TypeElement outermost = type;
    while (outermost.getEnclosingElement() instanceof TypeElement enclosing) {
      outermost = enclosing;
    }
    return sourceTypes.contains(outermost.getQualifiedName().toString());
  }

  /** Names the child-handler factory and the attachments class {@code type} generates, if any. */
  private void addFactoryAndAttachments(GeneratedNames names, TypeElement type,
      Optional<ChildHandlerFactoryModel> factory, String of, Reporter reporter) {
    factory.ifPresent(f ->
        names.add(
            "the class " + f.factory().canonicalName(),
            GeneratedNames.Origin.fixed("the @ChildHandler method" + of),
            reporter));
    if (!attachments.attachmentMethods(type).isEmpty()) {
      names.add(
          "the class " + TypeInspector.sibling(type, "Attachments").canonicalName(),
          GeneratedNames.Origin.fixed("the @Attachment methods" + of),
          reporter);
    }
  }

  /**
   * Whether two declarations generate one name (reported): the classes generated for the handler,
   * and the members of its API class and target class as their generators name them
   * ({@code TargetApiGenerator}, {@code ContainerTargetGenerator}).
   */
  private boolean namesClash(
      TypeElement type,
      TargetAnnotation target,
      TargetApiModel model,
      Optional<ChildHandlerFactoryModel> factory,
      Optional<ContainerPart> part,
      Reporter reporter) {
    TypeElement childHandler = part.map(ContainerPart::childHandler).orElse(null);
    String at = "@" + target.simpleName();
    String of = " of " + type.getQualifiedName();
    GeneratedNames.Origin named =
        new GeneratedNames.Origin(
            at + "(name = \"" + target.name() + "\")" + of,
            "set name = \"...\" to another noun",
            type,
            target.mirror(),
            valueOf(target, "name"));
    GeneratedNames.Origin apiName =
        target.api().isEmpty()
            ? new GeneratedNames.Origin(
                named.description() + " (its API class " + model.api().simpleName() + ")",
                "set api = \"...\" to another class name",
                type,
                target.mirror(),
                valueOf(target, "name"))
            : new GeneratedNames.Origin(
                at + "(api = \"" + target.api() + "\")" + of,
                "set api = \"...\" to another class name",
                type,
                target.mirror(),
                valueOf(target, "api"));
    GeneratedNames names = new GeneratedNames(type);
    names.add("the class " + model.api().canonicalName(), apiName, reporter);
    model.container().ifPresent(c ->
        names.add("the class " + c.targetClass().canonicalName(), named, reporter));
    addFactoryAndAttachments(names, type, factory, of, reporter);
    if (names.clashed()) {
      return true;
    }

    String api = model.api().canonicalName() + ".";
    GeneratedNames.Origin always = GeneratedNames.Origin.fixed("every generated API class");
    names.add("the field " + api + "PROVIDER", always, reporter);
    names.add("the field " + api + "provider", always, reporter);
    names.add("the method " + api + "register", always, reporter);
    names.add("the method " + api + "provider", always, reporter);
    names.add("the method " + api + "declare" + target.name(), named, reporter);
    if (model.container().isPresent()) {
      names.add("the method " + api + "mount" + target.name(), named, reporter);
    }
    for (AttachmentModel a : model.attachments()) {
      names.add("the method " + api + "declare" + a.target().name(), origin(type, a), reporter);
    }
    if (model.container().isPresent()) {
      TargetApiModel.ContainerModel c = model.container().get();
      String targetClass = c.targetClass().canonicalName() + ".";
      GeneratedNames.Origin everyTarget =
          GeneratedNames.Origin.fixed("every generated target class");
      names.add("the field " + targetClass + "children", everyTarget, reporter);
      names.add("the method " + targetClass + "children", everyTarget, reporter);
      names.add(
          "the method " + targetClass + "declare" + c.child().name(),
          new GeneratedNames.Origin(
              at + "(child = \"" + c.child().name() + "\")" + of,
              "set child = \"...\" to another noun",
              type,
              target.mirror(),
              valueOf(target, "child")),
          reporter);
      for (AttachmentModel a : c.childAttachments()) {
        names.add(
            "the method " + targetClass + "declare" + a.target().name(),
            origin(childHandler, a),
            reporter);
      }
      addNested(names, targetClass, c.nested(), childHandler, reporter);
    }
    return names.clashed();
  }

  /**
   * Records the {@code declare<Nested>} and {@code mount<Nested>} methods of a target class
   * ({@code targetClass}, with its trailing dot) whose children {@code childHandler} handles.
   */
  private void addNested(
      GeneratedNames names,
      String targetClass,
      Optional<NestedTarget> nested,
      TypeElement childHandler,
      Reporter reporter) {
    if (nested.isEmpty()) {
      return;
    }
    TargetAnnotation n = TargetAnnotation.readNested(elements, childHandler).orElseThrow();
    GeneratedNames.Origin origin =
        new GeneratedNames.Origin(
            "@NestedContainer(name = \"" + n.name() + "\") of " + childHandler.getQualifiedName(),
            "set its name = \"...\" to another noun",
            childHandler,
            n.mirror(),
            valueOf(n, "name"));
    String name = nested.get().container().name();
    names.add("the method " + targetClass + "declare" + name, origin, reporter);
    names.add("the method " + targetClass + "mount" + name, origin, reporter);
    if (hasView(targetClass, nested.get())) {
      names.add("the method " + targetClass + "as" + name, origin, reporter);
    }
  }

  /**
   * Whether the target class {@code targetClass} (with its trailing dot) gets {@code as<Name>()}:
   * see {@link NestedTarget#recurring()}.
   */
  private static boolean hasView(String targetClass, NestedTarget nested) {
    return nested.recurring()
        && !targetClass.equals(nested.targetClass().canonicalName() + ".");
  }

  /**
   * Whether two declarations generate one name in what is generated for a nested container
   * handler (reported): its target class and factory, and the target class's members.
   */
  private boolean nestedNamesClash(
      TypeElement type,
      TargetAnnotation target,
      TargetClassModel model,
      Optional<ChildHandlerFactoryModel> factory,
      ContainerPart part,
      Reporter reporter) {
    String of = " of " + type.getQualifiedName();
    GeneratedNames.Origin named =
        new GeneratedNames.Origin(
            "@NestedContainer(name = \"" + target.name() + "\")" + of,
            "set name = \"...\" to another noun",
            type,
            target.mirror(),
            valueOf(target, "name"));
    GeneratedNames names = new GeneratedNames(type);
    // A handler that is a @ContainerTarget too generates that one's classes beside these.
    Optional<TargetAnnotation> root =
        TargetAnnotation.read(elements, type).filter(TargetAnnotation::isContainer);
    root.ifPresent(r -> names.add(
        "the class " + ClassName.get(ClassName.get(type).packageName(), r.name() + "Target")
            .canonicalName(),
        GeneratedNames.Origin.fixed("@ContainerTarget(name = \"" + r.name() + "\")" + of),
        reporter));
    names.add("the class " + model.targetClass().canonicalName(), named, reporter);
    addFactoryAndAttachments(names, type, factory, of, reporter);
    if (names.clashed()) {
      return true;
    }
    String targetClass = model.targetClass().canonicalName() + ".";
    GeneratedNames.Origin everyTarget = GeneratedNames.Origin.fixed("every generated target class");
    names.add("the field " + targetClass + "children", everyTarget, reporter);
    names.add("the method " + targetClass + "children", everyTarget, reporter);
    names.add(
        "the method " + targetClass + "declare" + model.child().name(),
        new GeneratedNames.Origin(
            "@NestedContainer(child = \"" + model.child().name() + "\")" + of,
            "set child = \"...\" to another noun",
            type,
            target.mirror(),
            valueOf(target, "child")),
        reporter);
    for (AttachmentModel a : model.childAttachments()) {
      names.add(
          "the method " + targetClass + "declare" + a.target().name(),
          origin(part.childHandler(), a),
          reporter);
    }
    addNested(names, targetClass, model.nested(), part.childHandler(), reporter);
    return names.clashed();
  }

  /** The {@code @Attachment} of {@code handler} that {@code a} was read from, as an origin. */
  private GeneratedNames.Origin origin(TypeElement handler, AttachmentModel a) {
    ExecutableElement method = attachments.methodOf(handler, a);
    AttachmentAnnotation annotation = AttachmentAnnotation.read(elements, method).orElseThrow();
    return new GeneratedNames.Origin(
        AttachmentValidator.describe(method, a.type()),
        "rename the attachment",
        method,
        annotation.mirror(),
        annotation.nameValue());
  }

  private Optional<ExecutableElement> childHandler(
      TypeElement type, TargetAnnotation target, TypeMirror action, Reporter reporter) {
    List<ExecutableElement> methods = childHandlerMethods(type);
    if (methods.isEmpty()) {
      reporter.error(
          type,
          target.mirror(),
          target.isNested() ? Message.NESTED_MISSING_CHILD_HANDLER : Message.MISSING_CHILD_HANDLER,
          type.getQualifiedName(),
          action,
          target.child().orElseThrow(),
          unannotatedChildHandler(type, action)
              .map(m -> " (" + m.getSimpleName() + "() does: annotate it @ChildHandler)")
              .orElse(""));
      return Optional.empty();
    }
    if (methods.size() > 1) {
      reporter.error(
          methods.get(1),
          Message.DUPLICATE_CHILD_HANDLER,
          target.simpleName(),
          type.getQualifiedName(),
          methods.get(0).getSimpleName(),
          methods.get(1).getSimpleName());
      return Optional.empty();
    }
    ExecutableElement m = methods.get(0);
    if (m.getModifiers().contains(Modifier.PRIVATE)) {
      reporter.error(
          m, Message.INACCESSIBLE_ELEMENT, type.getQualifiedName() + "." + m.getSimpleName() + "()");
      return Optional.empty();
    }
    // Inherited from another package, it must be public: the factory generated beside the
    // handler calls it.
    Optional<Object[]> outOfReach = TypeInspector.inheritedOutOfReach(type, m, "@ChildHandler");
    if (outOfReach.isPresent()) {
      reporter.error(type, target.mirror(), Message.INACCESSIBLE_TYPE, outOfReach.get());
      return Optional.empty();
    }
    // As a member of the handler, which may inherit it from a generic base.
    ExecutableType member = asMemberOf(type, m);
    TypeMirror returned = member.getReturnType();
    Optional<List<TypeMirror>> args = inspector.handlerTypeArguments(returned);
    String problem = null;
    if (m.getModifiers().contains(Modifier.STATIC)) {
      problem = "is static";
    } else if (m.getParameters().size() != 1) {
      problem = "takes " + m.getParameters().size() + " parameters";
    } else if (!inspector.types().isAssignable(action, member.getParameterTypes().get(0))) {
      problem = "takes " + member.getParameterTypes().get(0) + ", not the action type";
    } else if (args.isEmpty()) {
      problem = "returns " + returned + ", which is not a TargetHandler";
    } else if (inspector.isRaw(returned)) {
      problem = "returns the raw type " + returned + ", whose V, R and A are unknown"
          + " (write its type arguments: " + returned + "<...>)";
    } else if (args.get().size() != 3 || !inspector.isConcrete(args.get().get(0))) {
      problem = "returns " + returned + ", whose value type V is not concrete";
    } else {
      // ChildHandlerFactory.childHandler throws nothing checked: building a child handler is
      // synchronous and side-effect free, with no I/O to fail.
      for (TypeMirror thrown : m.getThrownTypes()) {
        if (inspector.isChecked(thrown)) {
          problem = "declares the checked exception " + thrown
              + " (a child handler is built without I/O; throw an unchecked one)";
          break;
        }
      }
    }
    if (problem != null) {
      reporter.error(
          m,
          Mirrors.find(m, AnnotationNames.CHILD_HANDLER).orElseThrow(),
          Message.BAD_CHILD_HANDLER_METHOD,
          type.getQualifiedName(),
          m.getSimpleName(),
          problem,
          action);
      return Optional.empty();
    }
    TypeMirror childValue = target.childValue().orElseThrow();
    TypeMirror returnedValue = args.get().get(0);
    if (!inspector.types().isSameType(returnedValue, childValue)) {
      reporter.error(
          m,
          Mirrors.find(m, AnnotationNames.CHILD_HANDLER).orElseThrow(),
          target.isNested() ? Message.NESTED_CHILD_VALUE_MISMATCH : Message.CHILD_VALUE_MISMATCH,
          type.getSimpleName() + "." + m.getSimpleName() + "()",
          returnedValue,
          simpleName(childValue),
          childValue,
          childValue);
      return Optional.empty();
    }
    // Only the type arguments the return type fixes: the runtime reads the others from the
    // returned handler's class, which may fix them (TargetHandler<Row, ?, ?> rows(...)).
    List<ValueTypeClassifier.HandlerTypeProblem> unserializable =
        classifier.handlerTypeProblems(args.get()).stream()
            .filter(p -> inspector.isConcrete(p.type()))
            .toList();
    for (ValueTypeClassifier.HandlerTypeProblem p : unserializable) {
      reporter.error(
          m,
          Mirrors.find(m, AnnotationNames.CHILD_HANDLER).orElseThrow(),
          Message.UNSERIALIZABLE_HANDLER_TYPE,
          "the handler " + returned + " returned by @ChildHandler "
              + type.getQualifiedName() + "." + m.getSimpleName() + "()",
          p.type(),
          p.roles(),
          p.problem());
    }
    return unserializable.isEmpty() ? Optional.of(m) : Optional.empty();
  }

  /**
   * The first method of {@code type} that has the shape of a child handler but not the
   * annotation: an instance method taking the action and returning a TargetHandler (a
   * forgotten {@code @ChildHandler} is the likeliest reason a container has none).
   */
  private Optional<ExecutableElement> unannotatedChildHandler(TypeElement type, TypeMirror action) {
    return ElementFilter.methodsIn(type.getEnclosedElements()).stream()
        .filter(m -> !m.getModifiers().contains(Modifier.STATIC)
            && m.getParameters().size() == 1
            && inspector.types().isAssignable(action, m.getParameters().get(0).asType())
            && inspector.handlerTypeArguments(m.getReturnType()).isPresent())
        .findFirst();
  }

  /**
   * The {@code @ChildHandler} methods of {@code type}, or, when it declares none, of its nearest
   * superclass declaring some (an abstract base shared by several containers).
   */
  private List<ExecutableElement> childHandlerMethods(TypeElement type) {
    for (TypeElement t = type; t != null;
        t = inspector.types().asElement(t.getSuperclass()) instanceof TypeElement s ? s : null) {
      List<ExecutableElement> methods = ElementFilter.methodsIn(t.getEnclosedElements()).stream()
          .filter(m -> Mirrors.has(m, AnnotationNames.CHILD_HANDLER))
          .toList();
      if (!methods.isEmpty()) {
        return methods;
      }
    }
    return List.of();
  }

  /** {@code m}'s parameter and return types as a member of {@code type} (it may inherit it). */
  private ExecutableType asMemberOf(TypeElement type, ExecutableElement m) {
    return (ExecutableType) inspector.types().asMemberOf((DeclaredType) type.asType(), m);
  }

  /**
   * Whether {@code childValue} is a primitive type (or void), a generic class or a handler class,
   * reported: no handler has one as its value type, so the child handler's is never the same.
   */
  private boolean checkChildValueIsAClass(
      TypeElement type, TargetAnnotation target, TypeMirror childValue, Reporter reporter) {
    // A class literal names a generic class raw (List.class), and a raw V is no handler's.
    boolean generic = childValue instanceof DeclaredType d
        && !((TypeElement) d.asElement()).getTypeParameters().isEmpty();
    // The children's handler class in place of their value class, a slip of the pen.
    Optional<List<TypeMirror>> handlerArgs = generic || childValue.getKind().isPrimitive()
        ? Optional.empty()
        : inspector.handlerTypeArguments(childValue);
    if (!childValue.getKind().isPrimitive() && childValue.getKind() != TypeKind.VOID && !generic
        && handlerArgs.isEmpty()) {
      return false;
    }
    String what;
    String fix;
    if (handlerArgs.isPresent()) {
      what = "a TargetHandler class (the children's handler, not their value)";
      fix = handlerArgs.get().isEmpty() || !inspector.isConcrete(handlerArgs.get().get(0))
          ? "set it to the class of the children's values, the V of " + childValue
          : "set it to the class of the children's values, "
              + simpleName(inspector.types().erasure(handlerArgs.get().get(0))) + ".class, the V"
              + " of " + childValue;
    } else if (generic) {
      what = "a generic class, named raw by its class literal";
      fix = "give the children a value type without type parameters, e.g. a record holding the "
          + childValue + "<...>";
    } else if (childValue.getKind() == TypeKind.VOID) {
      what = "void";
      fix = "set it to the class of the children's values";
    } else {
      what = "a primitive type";
      String box = ValueTypeClassifier.boxedName(childValue);
      fix = "use " + box + ".class, with a @ChildHandler returning a TargetHandler<" + box
          + ", ?, ?>";
    }
    reporter.error(
        type,
        target.mirror(),
        valueOf(target, "childValue"),
        Message.PRIMITIVE_CHILD_VALUE,
        target.simpleName(),
        childValue,
        type.getQualifiedName(),
        what,
        fix);
    return true;
  }

  private void checkName(
      TypeElement type, TargetAnnotation target, String attribute, String value, Reporter reporter) {
    String problem;
    if (attribute.equals("provider")) {
      if (!value.isBlank()) {
        return;
      }
      problem = "is empty: give a provider name unique in the app, e.g. \"example.com/db/table\"";
    } else if (!Identifiers.isIdentifier(value)) {
      problem =
          attribute.equals("api")
              ? "is not a Java identifier: it names the generated API class"
              : "is not a Java identifier: it becomes the method name declare" + value
                  + "; use an UpperCamelCase noun such as Table";
    } else if (!attribute.equals("api") && !Character.isUpperCase(value.charAt(0))) {
      // declare<name> and <name>s are only Java names in UpperCamelCase.
      problem =
          "is not in UpperCamelCase: it would generate "
              + joined(generatedFrom(target, attribute, value))
              + "; write \""
              + Identifiers.upperCamel(value)
              + "\"";
    } else {
      return;
    }
    reporter.error(
        type,
        target.mirror(),
        valueOf(target, attribute),
        Message.INVALID_TARGET_NAME,
        target.simpleName(),
        attribute,
        value,
        type.getQualifiedName(),
        problem);
  }

  /** What a target's {@code name} or {@code child} becomes in the generated code. */
  private static List<String> generatedFrom(
      TargetAnnotation target, String attribute, String value) {
    List<String> names = new ArrayList<>(List.of("the method declare" + value));
    if (attribute.equals("name")) {
      if (target.isContainer()) {
        names.add("the method mount" + value);
      }
      if (target.api().isEmpty() && !target.isNested()) {
        names.add("the class " + Identifiers.plural(value));
      }
      if (target.isContainer()) {
        names.add("the class " + value + "Target");
      }
    }
    return names;
  }

  /** {@code a}, {@code a and b}, {@code a, b and c}. */
  private static String joined(List<String> items) {
    int last = items.size() - 1;
    return last == 0
        ? items.get(0)
        : String.join(", ", items.subList(0, last)) + " and " + items.get(last);
  }

  private static AnnotationValue valueOf(TargetAnnotation target, String attribute) {
    return target.valueOf(attribute).orElse(null);
  }

  private static String simpleName(TypeMirror type) {
    String s = type.toString();
    return s.substring(s.lastIndexOf('.') + 1);
  }
}
