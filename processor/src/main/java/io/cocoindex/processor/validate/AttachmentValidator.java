package io.cocoindex.processor.validate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;
import io.cocoindex.processor.diag.Message;
import io.cocoindex.processor.diag.Reporter;
import io.cocoindex.processor.mirror.AttachmentAnnotation;
import io.cocoindex.processor.model.AttachmentModel;
import io.cocoindex.processor.model.AttachmentsModel;
import io.cocoindex.processor.model.DeclaredTarget;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;

/** Validates the {@code @Attachment} methods of a handler class. */
public final class AttachmentValidator {
  private final Elements elements;
  private final TypeInspector inspector;
  private final ValueTypeClassifier classifier;

  public AttachmentValidator(
      Elements elements, TypeInspector inspector, ValueTypeClassifier classifier) {
    this.elements = elements;
    this.inspector = inspector;
    this.classifier = classifier;
  }

  /** The {@code @Attachment} methods declared in {@code type}, in order. */
  public List<ExecutableElement> attachmentMethods(TypeElement type) {
    List<ExecutableElement> methods = new ArrayList<>();
    for (ExecutableElement m : ElementFilter.methodsIn(type.getEnclosedElements())) {
      if (AttachmentAnnotation.read(elements, m).isPresent()) {
        methods.add(m);
      }
    }
    return methods;
  }

  /**
   * Whether a type or annotation value an attachment of {@code type}, its own or one it inherits,
   * depends on is not resolved yet (defer): its name, its handler type, or a type inside that
   * handler's V, R or A.
   */
  public boolean isUnresolved(TypeElement type) {
    for (TypeElement t = type; t != null;
        t = inspector.types().asElement(t.getSuperclass()) instanceof TypeElement s ? s : null) {
      if (hasUnresolvedAttachment(t)) {
        return true;
      }
    }
    return false;
  }

  private boolean hasUnresolvedAttachment(TypeElement type) {
    return attachmentMethods(type).stream()
        .anyMatch(
            m ->
                AttachmentAnnotation.read(elements, m).orElseThrow().isUnresolved()
                    || inspector.containsError(m.getReturnType())
                    || inspector.handlerTypeArguments(m.getReturnType()).stream()
                        .flatMap(List::stream)
                        .anyMatch(classifier::isUnresolvedHandlerType));
  }

  /** An attachment with the method it is read from: the handler's own, or one it inherits. */
  private record Found(AttachmentModel model, ExecutableElement method) {}

  /**
   * Validates every attachment of {@code type}, those it inherits from its superclasses first
   * (the engine registers what {@code attachments()} returns, whichever class declares it);
   * empty with errors reported when any is bad. Errors of an inherited attachment are reported
   * where its own class is processed: here it only makes the result empty.
   */
  public Optional<AttachmentsModel> validate(TypeElement type, Reporter reporter) {
    return collect(type, reporter)
        .map(
            found ->
                new AttachmentsModel(
                    ClassName.get(type),
                    TypeInspector.anyInstanceOf(type),
                    TypeInspector.sibling(type, "Attachments"),
                    found.stream().map(Found::model).toList(),
                    type));
  }

  private Optional<List<Found>> collect(TypeElement type, Reporter reporter) {
    List<Found> inherited = new ArrayList<>();
    if (inspector.types().asElement(type.getSuperclass()) instanceof TypeElement superclass) {
      Optional<List<Found>> up = collect(superclass, new Reporter());
      if (up.isEmpty()) {
        return Optional.empty();
      }
      inherited.addAll(up.get());
    }
    List<ExecutableElement> methods = attachmentMethods(type);
    // An @Attachment method overriding an inherited one takes its place.
    inherited.removeIf(
        f -> methods.stream().anyMatch(m -> m.getSimpleName().equals(f.method().getSimpleName())));
    boolean isHandler = inspector.handlerTypeArguments(type.asType()).isPresent();
    List<Found> attachments = new ArrayList<>(inherited);
    Map<String, ExecutableElement> byName = new LinkedHashMap<>();
    inherited.forEach(f -> byName.put(f.model().type(), f.method()));
    for (ExecutableElement m : methods) {
      AttachmentAnnotation a = AttachmentAnnotation.read(elements, m).orElseThrow();
      if (!isHandler) {
        reporter.error(
            m,
            a.mirror(),
            Message.WRONG_ELEMENT_KIND,
            "@Attachment",
            "methods of TargetHandler classes",
            type.getQualifiedName(),
            "does not implement TargetHandler",
            "move " + m.getSimpleName() + "() into the handler whose attachments it builds");
        continue;
      }
      if (!Identifiers.isIdentifier(a.name())) {
        // The name as an identifier, or an example when that is none either ("", "1st").
        String fixed = a.name().replaceAll("[^A-Za-z0-9_]", "_");
        if (!Identifiers.isIdentifier(fixed)) {
          fixed = "vector_index";
        }
        reporter.error(
            m,
            a.mirror(),
            a.nameValue(),
            Message.INVALID_ATTACHMENT_NAME,
            a.name(),
            type.getQualifiedName(),
            m.getSimpleName(),
            fixed,
            Identifiers.upperCamel(fixed));
        continue;
      }
      ExecutableElement previous = byName.putIfAbsent(a.name(), m);
      if (previous != null) {
        reporter.error(
            m,
            a.mirror(),
            a.nameValue(),
            Message.DUPLICATE_ATTACHMENT,
            a.name(),
            type.getQualifiedName(),
            previous.getEnclosingElement().equals(type)
                ? previous.getSimpleName()
                : ((TypeElement) previous.getEnclosingElement()).getQualifiedName() + "."
                    + previous.getSimpleName());
        continue;
      }
      if (clashesWithEarlier(type, m, a, byName, reporter)) {
        continue;
      }
      if (m.getModifiers().contains(Modifier.PRIVATE)) {
        reporter.error(
            m, a.mirror(), Message.INACCESSIBLE_ELEMENT, type.getQualifiedName() + "." + m.getSimpleName() + "()");
        continue;
      }
      String problem = null;
      Optional<List<TypeMirror>> args = inspector.handlerTypeArguments(m.getReturnType());
      if (m.getModifiers().contains(Modifier.STATIC)) {
        problem = "is static";
      } else if (!m.getParameters().isEmpty()) {
        problem = "takes parameters";
      } else if (args.isEmpty()) {
        problem = "returns " + m.getReturnType() + ", which is not a TargetHandler";
      } else if (inspector.isRaw(m.getReturnType())) {
        problem = "returns the raw type " + m.getReturnType() + ", whose V, R and A are unknown"
            + " (write its type arguments: " + m.getReturnType() + "<...>)";
      } else if (args.get().size() != 3 || !inspector.isConcrete(args.get().get(0))) {
        problem = "returns " + m.getReturnType() + ", whose value type V is not concrete";
      }
      if (problem != null) {
        reporter.error(
            m,
            a.mirror(),
            Message.BAD_ATTACHMENT_METHOD,
            type.getQualifiedName(),
            m.getSimpleName(),
            problem);
        continue;
      }
      // Only the type arguments the return type fixes: the runtime reads the others from the
      // returned handler's class.
      List<ValueTypeClassifier.HandlerTypeProblem> unserializable =
          classifier.handlerTypeProblems(args.get()).stream()
              .filter(p -> inspector.isConcrete(p.type()))
              .toList();
      for (ValueTypeClassifier.HandlerTypeProblem p : unserializable) {
        reporter.error(
            m,
            a.mirror(),
            Message.UNSERIALIZABLE_HANDLER_TYPE,
            "the handler " + m.getReturnType() + " returned by @Attachment "
                + type.getQualifiedName() + "." + m.getSimpleName() + "()",
            p.type(),
            p.roles(),
            p.problem());
      }
      if (!unserializable.isEmpty()) {
        continue;
      }
      TypeMirror value = args.get().get(0);
      attachments.add(
          new Found(
              new AttachmentModel(
                  a.name(),
                  m.getSimpleName().toString(),
                  new DeclaredTarget(
                      Identifiers.upperCamel(a.name()), TypeName.get(value), KeyModels.of(value))),
              m));
    }
    if (!methods.isEmpty() && !TypeInspector.isReachable(type)) {
      reporter.error(type, Message.INACCESSIBLE_ELEMENT, type.getQualifiedName());
    }
    if (!methods.isEmpty()) {
      // This class's generated of() calls the inherited methods too.
      for (Found f : inherited) {
        TypeInspector.inheritedOutOfReach(type, f.method(), "@Attachment")
            .ifPresent(args -> reporter.error(type, Message.INACCESSIBLE_TYPE, args));
      }
    }
    if (isHandler && !attachments.isEmpty() && !reporter.hasErrors()
        && !returnsAttachments(type, !methods.isEmpty())) {
      // The class whose generated of() returns them all: this one, or the nearest superclass
      // declaring attachments.
      TypeElement lowest = methods.isEmpty()
          ? (TypeElement) attachments.get(attachments.size() - 1).method().getEnclosingElement()
          : type;
      ClassName of = TypeInspector.sibling(lowest, "Attachments");
      // Its own methods when it has some: a superclass's override registers those it inherits.
      List<ExecutableElement> unregistered = methods.isEmpty()
          ? attachments.stream().map(Found::method).toList()
          : methods;
      reporter.error(
          type,
          Message.ATTACHMENTS_NOT_RETURNED,
          type.getQualifiedName(),
          String.join(", ", unregistered.stream().map(m -> m.getSimpleName() + "()").toList()),
          of.packageName().equals(ClassName.get(type).packageName())
              ? of.simpleName()
              : of.canonicalName());
    }
    if (reporter.hasErrors()) {
      return Optional.empty();
    }
    return Optional.of(attachments);
  }

  /**
   * Whether {@code type} overrides {@code TargetHandler.attachments()}, whose default returns no
   * attachment: itself when it declares attachments of its own ({@code hasOwn}: a superclass's
   * override returns that class's generated {@code of()}, which knows none of them), or in a
   * superclass otherwise. An abstract handler leaves it to its subclasses.
   */
  private boolean returnsAttachments(TypeElement type, boolean hasOwn) {
    if (type.getModifiers().contains(Modifier.ABSTRACT)) {
      return true;
    }
    for (ExecutableElement m : ElementFilter.methodsIn(elements.getAllMembers(type))) {
      if (m.getSimpleName().contentEquals("attachments")
          && m.getParameters().isEmpty()
          && !m.getModifiers().contains(Modifier.STATIC)) {
        TypeElement owner = (TypeElement) m.getEnclosingElement();
        return !owner.getQualifiedName().contentEquals(TypeInspector.TARGET_HANDLER)
            && (!hasOwn || owner.equals(type));
      }
    }
    return true;
  }

  /**
   * Whether attachment {@code a} generates a name an earlier attachment of {@code type} generates
   * too (reported): its {@code declare<Name>} method or its {@code <Handler>_Attachments}
   * constant, which differ only in case or '_' ({@code vector_index}, {@code vectorIndex}).
   */
  private static boolean clashesWithEarlier(
      TypeElement type,
      ExecutableElement m,
      AttachmentAnnotation a,
      Map<String, ExecutableElement> earlier,
      Reporter reporter) {
    String method = "declare" + Identifiers.upperCamel(a.name());
    String constant = Identifiers.constantName(a.name());
    for (Map.Entry<String, ExecutableElement> e : earlier.entrySet()) {
      if (e.getValue().equals(m)) {
        continue;
      }
      List<String> clashes = new ArrayList<>();
      if (method.equals("declare" + Identifiers.upperCamel(e.getKey()))) {
        clashes.add("the method " + method);
      }
      if (constant.equals(Identifiers.constantName(e.getKey()))) {
        clashes.add(
            "the constant "
                + TypeInspector.sibling(type, "Attachments").canonicalName()
                + "."
                + constant);
      }
      if (!clashes.isEmpty()) {
        reporter.error(
            m,
            a.mirror(),
            a.nameValue(),
            Message.GENERATED_NAME_CLASH,
            describe(m, a.name()),
            describe(e.getValue(), e.getKey()),
            String.join(" and ", clashes),
            "attachment names that differ only in case or '_' give the same Java names; rename"
                + " one of the attachments");
        return true;
      }
    }
    return false;
  }

  /** {@code @Attachment("row") on p.RowHandler.self()}, as messages name an attachment. */
  static String describe(ExecutableElement method, String name) {
    return "@Attachment(\"" + name + "\") on "
        + ((TypeElement) method.getEnclosingElement()).getQualifiedName() + "."
        + method.getSimpleName() + "()";
  }

  /**
   * The {@code @Attachment} method of {@code handler} that {@code attachment} was read from: its
   * own, or the nearest superclass's.
   */
  public ExecutableElement methodOf(TypeElement handler, AttachmentModel attachment) {
    for (TypeElement t = handler; t != null;
        t = inspector.types().asElement(t.getSuperclass()) instanceof TypeElement s ? s : null) {
      for (ExecutableElement m : attachmentMethods(t)) {
        if (m.getSimpleName().contentEquals(attachment.method())) {
          return m;
        }
      }
    }
    throw new IllegalStateException(attachment.method() + "() not found in " + handler);
  }
}
