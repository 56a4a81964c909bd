package io.cocoindex.processor.generate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeSpec;
import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.ChildTargetDef;
import io.cocoindex.processor.model.ChildHandlerFactoryModel;
import io.cocoindex.processor.validate.Identifiers;
import java.util.Objects;
import javax.lang.model.element.Modifier;

/**
 * Generates {@code <Handler>_ChildHandlerFactory}: the typed {@code ChildHandlerFactory} of a
 * container sink, calling the handler's {@code @ChildHandler} method.
 */
public final class ChildHandlerFactoryGenerator {

  public JavaFile generate(ChildHandlerFactoryModel model) {
    TypeSpec.Builder type =
        TypeSpec.classBuilder(model.factory())
            .addOriginatingElement(model.origin())
            .addJavadoc(
                "Builds the handler of $L {@link $T} container's children from its action with"
                    + " {@link $T#$L}; pass it to {@code TargetActionSink.withChildHandler}.\n",
                Identifiers.article(model.handler().simpleName()),
                model.handler(),
                model.handler(),
                model.method())
            .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
            .addSuperinterface(
                ParameterizedTypeName.get(ClassName.get(ChildHandlerFactory.class), model.action()))
            .addField(model.handlerType(), "handler", Modifier.PRIVATE, Modifier.FINAL)
            .addMethod(
                MethodSpec.constructorBuilder()
                    .addJavadoc(constructorJavadoc(model))
                    .addModifiers(Modifier.PUBLIC)
                    .addParameter(model.handlerType(), "handler")
                    .addStatement(
                        "this.handler = $T.requireNonNull(handler, $S)", Objects.class, "handler")
                    .build())
            .addMethod(
                MethodSpec.methodBuilder("childHandler")
                    .addAnnotation(Override.class)
                    .addModifiers(Modifier.PUBLIC)
                    .returns(
                        ParameterizedTypeName.get(
                            ClassName.get(ChildTargetDef.class), model.childValue()))
                    .addParameter(model.action(), "action")
                    .addStatement(
                        "return $T.of(handler.$N(action))", ChildTargetDef.class, model.method())
                    .build());
    return GeneratedFiles.file(model.handler().packageName(), type.build());
  }

  /**
   * The constructor's Javadoc; a nested container's says which handler to pass to a sink shared
   * by its kind, as the engine gives the factory the action alone.
   */
  private static CodeBlock constructorJavadoc(ChildHandlerFactoryModel model) {
    CodeBlock.Builder doc =
        CodeBlock.builder().add("A factory asking {@code handler} for the children's handler.\n\n");
    if (!model.nested()) {
      return doc.add("@param handler the container's handler\n").build();
    }
    return doc
        .add("<p>A nested container's sink is usually shared by every handler of its kind (one"
            + " batch for\nall their containers) and made before any of them: {@code handler} is"
            + " then any handler\nover it, and {@link $T#$L} must build the children's handler\n"
            + "from the action alone (and what the handlers share), never from {@code handler}'s"
            + " own\ncontainer.\n\n", model.handler(), model.method())
        .add("@param handler the container's handler, or for a shared sink any handler over it\n")
        .build();
  }
}
