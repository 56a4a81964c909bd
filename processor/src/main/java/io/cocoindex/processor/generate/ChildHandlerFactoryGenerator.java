package io.cocoindex.processor.generate;

import com.palantir.javapoet.ClassName;
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
                    .addJavadoc("A factory asking {@code handler} for the children's handler.\n\n"
                        + "@param handler the container's handler\n")
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
}
