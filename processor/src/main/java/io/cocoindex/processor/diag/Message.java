package io.cocoindex.processor.diag;

import java.util.Arrays;
import java.util.Locale;
import javax.tools.Diagnostic;

/**
 * Every diagnostic of the processor, with its stable id. A message names the offending element
 * and says how to fix it; ids are never reused, so build logs and docs can refer to them.
 */
public enum Message {
  /**
   * An annotation on an element of a kind it does not apply to: the annotation, what it applies
   * to, the element, what the element is, and the fix.
   */
  WRONG_ELEMENT_KIND(1, "%s applies to %s, but %s %s: %s"),
  /** A tracking record that is not an immutable record. */
  MUTABLE_TRACKING_RECORD(
      2,
      "@TrackingRecord %s is %s: tracking records of earlier runs are compared with the desired"
          + " state, so they must be immutable; declare %s as a record"),
  /** A record component whose type has no codec. */
  UNSERIALIZABLE_COMPONENT(
      3, "component '%s' of %s has type %s, which cannot be serialized: %s"),
  /** A container handler without its child-handler factory method. */
  MISSING_CHILD_HANDLER(
      4,
      "@ContainerTarget %s has no @ChildHandler method: add a method annotated @ChildHandler that"
          + " takes the container's action (%s) and returns the TargetHandler of its %s"
          + " children%s"),
  /** A child-handler factory whose handler's value type is not the declared child value. */
  CHILD_VALUE_MISMATCH(
      5,
      "@ChildHandler %s returns a handler of %s values, but @ContainerTarget(childValue = %s.class)"
          + " declares %s children: return a TargetHandler<%s, ?, ?> or change childValue"),
  /** Two attachment methods with the same name in one handler. */
  DUPLICATE_ATTACHMENT(
      6,
      "attachment '%s' of %s is declared twice (also by %s()): give each @Attachment method a"
          + " distinct name"),
  /** An attachment name that cannot become a method name. */
  INVALID_ATTACHMENT_NAME(
      7,
      "attachment name '%s' of %s.%s() is not a Java identifier: use letters, digits and '_'"
          + " ('%s' would become the method declare%s)"),
  /** Two handlers registering the same provider name. */
  DUPLICATE_PROVIDER(
      8,
      "provider name '%s' of %s is already used by %s in this compilation: provider names must be"
          + " unique in an app; choose another name"),
  /** A key component whose type cannot become a StableKey. */
  UNSUPPORTED_KEY_TYPE(
      9,
      "@Key component '%s' of %s has type %s, which cannot be part of a StableKey: %suse String,"
          + " long, int, short, byte, boolean (or their boxes), UUID, byte[], Fingerprint or"
          + " StableKey"),
  /** A handler whose V, R, A cannot be read from its class. */
  UNRESOLVED_HANDLER_TYPES(
      10,
      "%s %s: the engine serializes values, tracking records and actions by the handler's type"
          + " arguments; implement TargetHandler<V, R, A> with concrete types (no type variables"
          + " or wildcards)"),
  /** A malformed @ChildHandler method. */
  BAD_CHILD_HANDLER_METHOD(
      11,
      "@ChildHandler %s.%s() %s: it must be an instance method taking the container's action (%s)"
          + " and returning a TargetHandler of the children"),
  /** A malformed @Attachment method. */
  BAD_ATTACHMENT_METHOD(
      12,
      "@Attachment %s.%s() %s: it must be an instance method with no parameters returning a"
          + " TargetHandler with concrete type arguments"),
  /** A provider, target or API name that is empty or not an identifier. */
  INVALID_TARGET_NAME(13, "@%s(%s = \"%s\") of %s %s"),
  /** An element generated code cannot reach. */
  INACCESSIBLE_ELEMENT(
      14,
      "%s is private or inside a private class: the code generated beside it cannot reach it; make"
          + " it package-private or public"),
  /** A serialized record with type parameters. */
  GENERIC_RECORD(
      15,
      "@%s record %s declares type parameters: a generated codec needs concrete component types;"
          + " remove the type parameters"),
  /** More than one child-handler factory method. */
  DUPLICATE_CHILD_HANDLER(
      16,
      "@%s %s has more than one @ChildHandler method (%s() and %s()): keep one"),
  /** Two handlers whose generated API classes would have the same name. */
  DUPLICATE_API_CLASS(
      17,
      "the API class %s generated for %s is already generated for %s: %s"),
  /** A generated API or target class whose name a type of the compilation already has. */
  GENERATED_CLASS_EXISTS(
      18,
      "the class %s that %s generates for %s is a type of this compilation already: set api ="
          + " \"...\" (the API class) or name = \"...\" (the target class) to a free name, or"
          + " rename that type"),
  /**
   * A generated file javac refused to create: a type of that name is already part of the
   * compilation (a codec or factory named like a type someone wrote, or another processor's).
   */
  GENERATED_TYPE_TAKEN(
      19,
      "cannot generate %s for %s: %s; a type of that name is already part of this compilation"
          + " (written by hand or generated by another processor): rename that type"),
  /**
   * Two declarations that generate one name in one generated class (two attachments whose names
   * differ only in case or '_', an attachment named like the target, an API class named like
   * another generated class): the generated code would not compile.
   */
  GENERATED_NAME_CLASH(20, "%s and %s both generate %s: %s"),
  /** A handler type argument V, R or A that the engine cannot serialize. */
  UNSERIALIZABLE_HANDLER_TYPE(
      21,
      "%s has %s as its %s, which cannot be serialized (the engine stores and copies values,"
          + " tracking records and actions through the codecs of the handler's type arguments):"
          + " %s"),
  /** A container's child value type that no handler can have: a primitive type, or void. */
  PRIMITIVE_CHILD_VALUE(
      22,
      "@%s(childValue = %s.class) of %s is %s, which no TargetHandler takes as its"
          + " value type V: %s"),
  /**
   * A handler with {@code @Attachment} methods that does not override {@code attachments()}: the
   * engine registers only the attachment types {@code attachments()} returns, so every {@code
   * declare<Name>} of them would fail at run time ("has no attachment type").
   */
  ATTACHMENTS_NOT_RETURNED(
      23,
      "%s has @Attachment methods (%s) but does not override attachments(), so the engine never"
          + " registers them and declaring one fails at run time: add @Override public"
          + " Map<String, ChildTargetDef<?>> attachments() { return %s.of(this); }"),
  /**
   * A type the generated code names that code in its package cannot name: private (or inside a
   * private class), or protected or package-private in another package (a nested type inherited
   * from a superclass elsewhere).
   */
  INACCESSIBLE_TYPE(
      24,
      "%s, which the code generated in %s names but cannot reach: %s is %s; make it %s"),
  /**
   * A warning: a stored record carrying Jackson annotations, which its generated codec ignores
   * while the reflective codec honours them, so the two no longer read each other's bytes.
   */
  JACKSON_ANNOTATIONS_IGNORED(
      25,
      Diagnostic.Kind.WARNING,
      "%s record %s carries Jackson annotations (%s), which its generated codec ignores: it"
          + " stores every component under its own name, so a value the reflective codec stored"
          + " under these annotations does not read back; keep Jackson's annotations off the"
          + " records cocoindex stores (give a REST API a record of its own), or add"
          + " @SuppressWarnings(\"COCO-025\") to the record if none was stored that way"),
  /** A nested container handler without its child-handler factory method. */
  NESTED_MISSING_CHILD_HANDLER(
      26,
      "@NestedContainer %s has no @ChildHandler method: add a method annotated @ChildHandler that"
          + " takes the nested container's action (%s) and returns the TargetHandler of its %s"
          + " children%s, or remove @NestedContainer if none of its target states has children"),
  /** A nested container's child handler whose value type is not its declared child value. */
  NESTED_CHILD_VALUE_MISMATCH(
      27,
      "@ChildHandler %s returns a handler of %s values, but @NestedContainer(childValue = %s.class)"
          + " declares %s children: return a TargetHandler<%s, ?, ?> or change childValue"),
  /**
   * A container handler whose child handler is a nested container of another package: the
   * container's generated target class constructs the nested one's, whose constructor is
   * package-private.
   */
  NESTED_CONTAINER_IN_OTHER_PACKAGE(
      28,
      "@ChildHandler %s returns the @NestedContainer handler %s of package %s, but the target"
          + " class generated for %s in package %s would construct %s, which only code of its own"
          + " package can: move %s into package %s (or the container handler into %s)"),
  /**
   * A handler that is both a root container and a nested one, whose two annotations describe
   * different children: its one child-handler factory builds one kind.
   */
  NESTED_CHILDREN_DIFFER(
      29,
      "%s is a @ContainerTarget with %s children and a @NestedContainer with %s children, but its"
          + " one @ChildHandler builds the handler of one kind of children: give both annotations"
          + " the same child and childValue"),
  /**
   * A warning: a {@code @ChildHandler} method declared to return an interface or abstract class
   * that handler classes of the compilation with attachments or nested containers implement; the
   * processor finds those through the declared return type alone.
   */
  CHILD_HANDLER_HIDES_TARGET_METHODS(
      30,
      Diagnostic.Kind.WARNING,
      "@ChildHandler %s is declared to return %s, which gives %s none of the methods of %s: the"
          + " processor reads no method body, so it finds a child handler's attachments and"
          + " nested containers through the declared return type alone; %s, or add"
          + " @SuppressWarnings(\"COCO-030\") to %s if it returns another handler"),
  /** A bug of the processor, reported instead of crashing javac. */
  INTERNAL_ERROR(
      99,
      "internal error in cocoindex-processor while processing %s; please report it with this"
          + " trace:%n%s");

  private final int number;
  private final Diagnostic.Kind kind;
  private final String format;

  Message(int number, String format) {
    this(number, Diagnostic.Kind.ERROR, format);
  }

  Message(int number, Diagnostic.Kind kind, String format) {
    this.number = number;
    this.kind = kind;
    this.format = format;
  }

  /** The stable id, e.g. {@code COCO-003}. */
  public String id() {
    return String.format(Locale.ROOT, "COCO-%03d", number);
  }

  /**
   * An error, but for the warnings: a malformed connector must not compile, while a warning names
   * a legal shape that behaves otherwise than its author may expect.
   */
  public Diagnostic.Kind kind() {
    return kind;
  }

  /**
   * Whether {@code suppress}, an element's {@code @SuppressWarnings} (or null), names this
   * warning's id, as {@code @SuppressWarnings("COCO-025")} does. Errors are never suppressed.
   */
  public boolean isSuppressedBy(SuppressWarnings suppress) {
    return kind != Diagnostic.Kind.ERROR
        && suppress != null
        && Arrays.asList(suppress.value()).contains(id());
  }

  /** The full text, {@code [COCO-NNN] } followed by the formatted message. */
  public String format(Object... args) {
    return "[" + id() + "] " + String.format(Locale.ROOT, format, args);
  }
}
