package io.cocoindex.processor.generate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;
import io.cocoindex.Ctx;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.processor.model.AttachmentModel;
import io.cocoindex.processor.model.DeclaredTarget;
import io.cocoindex.processor.model.TargetApiModel;
import io.cocoindex.processor.validate.Identifiers;
import java.util.Objects;
import javax.lang.model.element.Modifier;

/**
 * Generates the user-facing API class of a root handler ({@code Tables}): registration, then
 * {@code declare<Name>} (and {@code mount<Name>} for a container) and attachment declarations.
 */
public final class TargetApiGenerator {

  public JavaFile generate(TargetApiModel model) {
    DeclaredTarget target = model.target();
    TypeName providerType =
        ParameterizedTypeName.get(ClassName.get(TargetStateProvider.class), target.value());
    TypeSpec.Builder type =
        TypeSpec.classBuilder(model.api())
            .addOriginatingElement(model.origin())
            .addJavadoc(
                "Declares $L target states handled by {@link $T}. Call {@link #register} once per"
                    + " run (from the app's main component), then declare through the returned"
                    + " instance from any component.\n",
                target.name(),
                model.handler())
            .addModifiers(Modifier.FINAL)
            .addField(
                FieldSpec.builder(String.class, "PROVIDER", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
                    .addJavadoc("The provider name the handler is registered under.\n")
                    .initializer("$S", model.provider())
                    .build())
            .addField(providerType, "provider", Modifier.PRIVATE, Modifier.FINAL)
            .addMethod(
                MethodSpec.constructorBuilder()
                    .addModifiers(Modifier.PRIVATE)
                    .addParameter(providerType, "provider")
                    .addStatement("this.provider = provider")
                    .build())
            .addMethod(
                MethodSpec.methodBuilder("register")
                    .addJavadoc(
                        "Registers {@code handler} as the root provider {@value #PROVIDER} for this"
                            + " run; states it declared in earlier runs and no longer declares are"
                            + " deleted through it.\n\n@param ctx the context of the app's main"
                            + " component\n@param handler the handler of these target states\n"
                            + "@return the API to declare through in this run\n")
                    .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                    .returns(model.api())
                    .addParameter(Ctx.class, "ctx")
                    .addParameter(model.handlerType(), "handler")
                    .addStatement(
                        "return new $T($T.registerRootTargetStatesProvider(ctx, PROVIDER,"
                            + " $T.requireNonNull(handler, $S)))",
                        model.api(),
                        DeclareMethods.TARGET_STATES,
                        Objects.class,
                        "handler")
                    .build());
    if (model.isPublic()) {
      type.addModifiers(Modifier.PUBLIC);
    }
    if (model.container().isPresent()) {
      ClassName targetClass = model.container().get().targetClass();
      TypeName childValue = model.container().get().child().value();
      type.addMethod(
          DeclareMethods.start("declare", target)
              .addJavadoc(
                  "Declares {@code $N} as $L in the calling component; its children resolve"
                      + " when that component commits, so declare them from the same component.\n",
                  DeclareMethods.parameter(target),
                  Identifiers.withArticle(target.name()))
              .addJavadoc(DeclareMethods.keyNote(target))
              .addJavadoc(DeclareMethods.tags(target, "the declared " + target.name()
                  + ", to declare its children through"))
              .returns(targetClass)
              .addStatement(
                  "return new $T($T.<$T, $T>declareTargetStateWithChild(ctx,"
                      + " provider.targetState($L, $N)))",
                  targetClass,
                  DeclareMethods.TARGET_STATES,
                  target.value(),
                  childValue,
                  DeclareMethods.key(target),
                  DeclareMethods.parameter(target))
              .build());
      type.addMethod(
          DeclareMethods.start("mount", target)
              .addJavadoc(
                  "Declares {@code $N} as $L and commits it in a foreground child component:"
                      + " its children may be declared from any component at once.\n",
                  DeclareMethods.parameter(target),
                  Identifiers.withArticle(target.name()))
              .addJavadoc(DeclareMethods.keyNote(target))
              .addJavadoc(DeclareMethods.tags(target, "the declared " + target.name()
                  + ", to declare its children through"))
              .returns(targetClass)
              .addStatement(
                  "return new $T($T.<$T, $T>mountTarget(ctx, provider.targetState($L, $N)))",
                  targetClass,
                  DeclareMethods.TARGET_STATES,
                  target.value(),
                  childValue,
                  DeclareMethods.key(target),
                  DeclareMethods.parameter(target))
              .build());
    } else {
      type.addMethod(
          DeclareMethods.start("declare", target)
              .addJavadoc(
                  "Declares {@code $N} as $L in the calling component.\n",
                  DeclareMethods.parameter(target),
                  Identifiers.withArticle(target.name()))
              .addJavadoc(DeclareMethods.keyNote(target))
              .addJavadoc(DeclareMethods.tags(target, null))
              .addStatement(
                  "$T.declareTargetState(ctx, provider.targetState($L, $N))",
                  DeclareMethods.TARGET_STATES,
                  DeclareMethods.key(target),
                  DeclareMethods.parameter(target))
              .build());
    }
    for (AttachmentModel a : model.attachments()) {
      type.addMethod(DeclareMethods.attachment(a, "provider", "the root provider"));
    }
    type.addMethod(
        MethodSpec.methodBuilder("provider")
            .addJavadoc("The registered root provider, for what this API does not cover.\n\n"
                + "@return the root provider\n")
            .addModifiers(Modifier.PUBLIC)
            .returns(providerType)
            .addStatement("return provider")
            .build());
    return GeneratedFiles.file(model.api().packageName(), type.build());
  }
}
