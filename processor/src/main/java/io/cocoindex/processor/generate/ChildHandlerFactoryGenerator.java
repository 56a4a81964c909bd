package io.cocoindex.processor.generate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import com.palantir.javapoet.WildcardTypeName;
import io.cocoindex.ChildHandlerFactory;
import io.cocoindex.ChildTargetDef;
import io.cocoindex.TargetHandler;
import io.cocoindex.processor.model.ChildHandlerFactoryModel;
import io.cocoindex.processor.validate.Identifiers;
import java.util.Objects;
import javax.lang.model.element.Modifier;

/**
 * Generates {@code <Handler>_ChildHandlerFactory}: the typed {@code ChildHandlerFactory} of a
 * container sink, calling the handler's {@code @ChildHandler} method.
 */
public final class ChildHandlerFactoryGenerator {
  private static final TypeName ANY_HANDLER =
      ParameterizedTypeName.get(
          ClassName.get(TargetHandler.class),
          WildcardTypeName.subtypeOf(Object.class),
          WildcardTypeName.subtypeOf(Object.class),
          WildcardTypeName.subtypeOf(Object.class));

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
                    .build())
            .addMethod(askingTheContainersOwnHandler(model));
    return GeneratedFiles.file(model.handler().packageName(), type.build());
  }

  /**
   * {@code childHandler(containerHandler, action)}: the engine passes the handler that returned
   * the action, which with a shared sink need not be the one the factory holds; asked, it builds
   * the children's handler of its own container.
   */
  private static MethodSpec askingTheContainersOwnHandler(ChildHandlerFactoryModel model) {
    return MethodSpec.methodBuilder("childHandler")
        .addAnnotation(Override.class)
        .addModifiers(Modifier.PUBLIC)
        .returns(ParameterizedTypeName.get(ClassName.get(ChildTargetDef.class), model.childValue()))
        .addParameter(ANY_HANDLER, "containerHandler")
        .addParameter(model.action(), "action")
        .beginControlFlow("if (containerHandler instanceof $T)", model.handlerType())
        .addStatement(
            "return $T.of((($T) containerHandler).$N(action))",
            ChildTargetDef.class, model.handlerType(), model.method())
        .endControlFlow()
        .addStatement("return $T.of(handler.$N(action))", ChildTargetDef.class, model.method())
        .build();
  }

  /**
   * The constructor's Javadoc; a nested container's says which handler to pass to a sink shared
   * by its kind.
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
            + " then any handler\nover it. The engine asks the handler that returned each action"
            + "\n({@link #childHandler(TargetHandler, $T)}), so\n{@link $T#$L} runs on its"
            + " container's own handler; {@code handler} answers\nonly {@link"
            + " #childHandler($T)} called alone.\n\n",
            model.action(), model.handler(), model.method(), model.action())
        .add("@param handler the container's handler, or for a shared sink any handler over it\n")
        .build();
  }
}
