package io.cocoindex.processor.generate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import io.cocoindex.Ctx;
import io.cocoindex.processor.model.AttachmentModel;
import io.cocoindex.processor.model.DeclaredTarget;
import io.cocoindex.processor.validate.Identifiers;
import java.util.Arrays;
import javax.lang.model.element.Modifier;

/** The {@code declare<Name>} methods shared by the generated API and target classes. */
final class DeclareMethods {
  private DeclareMethods() {}

  static final ClassName TARGET_STATES = ClassName.get("io.cocoindex", "TargetStates");

  /**
   * A method named {@code <verb><Name>} taking the ctx, the key unless the value carries it, and
   * the value; its body is completed by the caller with {@link #key} and {@link #parameter}.
   */
  static MethodSpec.Builder start(String verb, DeclaredTarget target) {
    return start(verb, target, true);
  }

  /** As {@link #start(String, DeclaredTarget)}, package-private unless {@code isPublic}. */
  static MethodSpec.Builder start(String verb, DeclaredTarget target, boolean isPublic) {
    MethodSpec.Builder m = MethodSpec.methodBuilder(verb + target.name());
    if (isPublic) {
      m.addModifiers(Modifier.PUBLIC);
    }
    m.addParameter(Ctx.class, "ctx");
    if (target.key().isExplicit()) {
      m.addParameter(Object.class, "key");
    }
    return m.addParameter(target.value(), parameter(target));
  }

  static String parameter(DeclaredTarget target) {
    return Identifiers.parameterName(target.name());
  }

  /**
   * For a method taking the key beside the value, the Javadoc paragraph saying why and what it may
   * be (a value without {@code @Key} is the usual cause of a call with the value alone not
   * compiling); empty otherwise.
   */
  static CodeBlock keyNote(DeclaredTarget target) {
    if (!target.key().isExplicit()) {
      return CodeBlock.of("");
    }
    String value = target.value() instanceof ClassName c ? c.simpleName() : target.value().toString();
    return CodeBlock.of(
        "\n<p>{@code key} identifies it, as {@code $L} has no {@code @Key} component: a String, a"
            + " long or int, a UUID, a byte[], a Fingerprint, a StableKey or a List of those"
            + " ({@code StableKey.of} rejects anything else when it is declared).\n",
        value);
  }

  /**
   * The block tags of a method {@link #start} began: its parameters, and what it returns unless
   * {@code returns} is null. Last in its Javadoc.
   */
  static CodeBlock tags(DeclaredTarget target, String returns) {
    CodeBlock.Builder b = CodeBlock.builder()
        .add("\n@param ctx the calling component's context\n");
    if (target.key().isExplicit()) {
      b.add("@param key what identifies it among the provider's states\n");
    }
    b.add("@param $N the $L to declare\n", parameter(target), target.name());
    if (returns != null) {
      b.add("@return $L\n", returns);
    }
    return b.build();
  }

  /** The key expression: the explicit parameter, one {@code @Key} component, or a list of them. */
  static CodeBlock key(DeclaredTarget target) {
    if (target.key().isExplicit()) {
      return CodeBlock.of("key");
    }
    String value = parameter(target);
    if (target.key().accessors().size() == 1) {
      return CodeBlock.of("$N.$N()", value, target.key().accessors().get(0));
    }
    CodeBlock parts =
        target.key().accessors().stream()
            .map(a -> CodeBlock.of("$N.$N()", value, a))
            .collect(CodeBlock.joining(", "));
    return CodeBlock.of("$T.<Object>asList($L)", Arrays.class, parts);
  }

  /** {@code declare<Attachment>} declaring into the attachment provider of {@code provider}. */
  static MethodSpec attachment(AttachmentModel a, String provider, String owner) {
    DeclaredTarget t = a.target();
    return start("declare", t)
        .addJavadoc(
            "Declares {@code $N} as $L {@code $L} attachment of $L, from the calling component.\n",
            parameter(t),
            Identifiers.article(a.type()),
            a.type(),
            owner)
        .addJavadoc(keyNote(t))
        .addJavadoc(tags(t, null))
        .addStatement(
            "$T.declareTargetState(ctx, $N.<$T>attachment(ctx, $S).targetState($L, $N))",
            TARGET_STATES,
            provider,
            t.value(),
            a.type(),
            key(t),
            parameter(t))
        .build();
  }
}
