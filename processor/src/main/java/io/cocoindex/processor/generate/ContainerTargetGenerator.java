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
import io.cocoindex.processor.model.TargetApiModel;
import io.cocoindex.processor.validate.Identifiers;
import javax.lang.model.element.Modifier;

/**
 * Generates {@code <Name>Target}: one declared container, with {@code declare<Child>} and a
 * {@code declare<Attachment>} per attachment of the child handler.
 */
public final class ContainerTargetGenerator {

  public JavaFile generate(TargetApiModel model) {
    TargetApiModel.ContainerModel container = model.container().orElseThrow();
    DeclaredTarget child = container.child();
    TypeName providerType =
        ParameterizedTypeName.get(ClassName.get(TargetStateProvider.class), child.value());
    ClassName name = container.targetClass();
    TypeSpec.Builder type =
        TypeSpec.classBuilder(name)
            .addOriginatingElement(model.origin())
            .addJavadoc(
                "A declared $L of {@link $T}: declares its $L children. Obtained from {@link"
                    + " $T}.\n",
                model.target().name(),
                model.handler(),
                child.name(),
                model.api())
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
    if (model.isPublic()) {
      type.addModifiers(Modifier.PUBLIC);
    }
    for (AttachmentModel a : container.childAttachments()) {
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
}
