package io.cocoindex.processor.generate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.processor.model.AttachmentModel;
import io.cocoindex.processor.model.DeclaredTarget;
import io.cocoindex.processor.model.NestedTarget;
import io.cocoindex.processor.model.TargetClassModel;
import io.cocoindex.processor.validate.Identifiers;
import javax.lang.model.element.Modifier;

/**
 * Generates {@code <Name>Target}: one declared container (a root one, or one nested in another),
 * with {@code declare<Child>}, a {@code declare<Attachment>} per attachment of the child handler,
 * and {@code declare<Nested>}/{@code mount<Nested>} when the children may be containers too.
 */
public final class ContainerTargetGenerator {

  public JavaFile generate(TargetClassModel model) {
    DeclaredTarget child = model.child();
    TypeName providerType =
        ParameterizedTypeName.get(ClassName.get(TargetStateProvider.class), child.value());
    ClassName name = model.targetClass();
    TypeSpec.Builder type =
        TypeSpec.classBuilder(name)
            .addOriginatingElement(model.origin())
            .addModifiers(Modifier.FINAL)
            .addField(providerType, "children", Modifier.PRIVATE, Modifier.FINAL)
            .addMethod(
                MethodSpec.constructorBuilder()
                    .addParameter(providerType, "children")
                    .addStatement("this.children = children")
                    .build())
            .addMethod(
                DeclareMethods.start("declare", child)
                    .addJavadoc(
                        "Declares {@code $N} as $L of this container, from the calling"
                            + " component.\n",
                        DeclareMethods.parameter(child),
                        Identifiers.withArticle(child.name()))
                    .addJavadoc(DeclareMethods.keyNote(child))
                    .addJavadoc(DeclareMethods.tags(child, null))
                    .addStatement(
                        "$T.declareTargetState(ctx, children.targetState($L, $N))",
                        DeclareMethods.TARGET_STATES,
                        DeclareMethods.key(child),
                        DeclareMethods.parameter(child))
                    .build());
    if (model.api().isPresent()) {
      type.addJavadoc(
          "A declared $L of {@link $T}: declares its $L children. Obtained from {@link $T}.\n",
          model.containerName(),
          model.handler(),
          child.name(),
          model.api().get());
    } else {
      type.addJavadoc(
          "A declared $L, a container nested in a container, handled by {@link $T}: declares its"
              + " $L children. Obtained from {@code declare$L} or {@code mount$L} of a container"
              + " whose children {@link $T} handles.\n",
          model.containerName(),
          model.handler(),
          child.name(),
          model.containerName(),
          model.containerName(),
          model.handler());
    }
    if (model.isPublic()) {
      type.addModifiers(Modifier.PUBLIC);
    }
    model.nested().ifPresent(n -> {
      type.addMethod(nestedDeclare(n));
      type.addMethod(nestedMount(n));
      if (n.recurring() && !n.targetClass().equals(name)) {
        type.addMethod(view(n, model.containerName()));
      }
    });
    for (AttachmentModel a : model.childAttachments()) {
      type.addMethod(DeclareMethods.attachment(a, "children", "this container"));
    }
    type.addMethod(
        MethodSpec.methodBuilder("children")
            .addJavadoc("The provider of this container's children, for what this class does not"
                + " cover.\n\n@return the children's provider\n")
            .addModifiers(Modifier.PUBLIC)
            .returns(providerType)
            .addStatement("return children")
            .build());
    return GeneratedFiles.file(name.packageName(), type.build());
  }

  /** {@code declare<Nested>}: a child that is a container, resolved when the component commits. */
  private static MethodSpec nestedDeclare(NestedTarget n) {
    return nested(n, "declare", "in the calling component; its children resolve when that"
        + " component commits, so declare them from the same component",
        "declareTargetStateWithChild");
  }

  /** {@code mount<Nested>}: a child that is a container, committed before it returns. */
  private static MethodSpec nestedMount(NestedTarget n) {
    return nested(n, "mount", "and commits it in a foreground child component: its children may"
        + " be declared from any component at once", "mountTarget");
  }

  /**
   * {@code <verb><Nested>}: declares a child that is a container through {@code TargetStates}'
   * {@code targetStatesMethod}, and returns its target class; {@code how} ends the Javadoc's
   * first sentence.
   */
  private static MethodSpec nested(
      NestedTarget n, String verb, String how, String targetStatesMethod) {
    DeclaredTarget c = n.container();
    return DeclareMethods.start(verb, c, n.isPublic())
        .addJavadoc("Declares {@code $N} as $L of this container, itself a container, $L.\n",
            DeclareMethods.parameter(c),
            Identifiers.withArticle(c.name()),
            how)
        .addJavadoc(DeclareMethods.keyNote(c))
        .addJavadoc(DeclareMethods.tags(c, "the declared " + c.name()
            + ", to declare its children through"))
        .returns(n.targetClass())
        .addStatement("return new $T($T.<$T, $T>$L(ctx, children.targetState($L, $N)))",
            n.targetClass(),
            DeclareMethods.TARGET_STATES,
            c.value(),
            n.childValue(),
            targetStatesMethod,
            DeclareMethods.key(c),
            DeclareMethods.parameter(c))
        .build();
  }

  /**
   * {@code as<Nested>()}: this container's children seen as those of a nested container, which
   * are handled alike (nesting that recurs), so that one piece of code declares at every level.
   */
  private static MethodSpec view(NestedTarget n, String containerName) {
    MethodSpec.Builder view = MethodSpec.methodBuilder("as" + n.container().name());
    if (n.isPublic()) {
      view.addModifiers(Modifier.PUBLIC);
    }
    return view
        .addJavadoc(
            "This $L's children as those of $L: they have the same handler, so code declaring"
                + " into {@link $T} at any depth serves this level too. Declarations through the"
                + " returned object are this $L's children.\n\n@return a view of this $L's"
                + " children\n",
            containerName,
            Identifiers.withArticle(n.container().name()),
            n.targetClass(),
            containerName,
            containerName)
        .returns(n.targetClass())
        .addStatement("return new $T(children)", n.targetClass())
        .build();
  }
}
