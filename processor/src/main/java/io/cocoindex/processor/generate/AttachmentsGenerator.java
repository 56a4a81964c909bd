package io.cocoindex.processor.generate;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeSpec;
import com.palantir.javapoet.WildcardTypeName;
import io.cocoindex.ChildTargetDef;
import io.cocoindex.processor.model.AttachmentModel;
import io.cocoindex.processor.model.AttachmentsModel;
import io.cocoindex.processor.validate.Identifiers;
import java.util.Map;
import javax.lang.model.element.Modifier;

/**
 * Generates {@code <Handler>_Attachments}: the attachment types of a handler, and the map its
 * {@code attachments()} returns.
 */
public final class AttachmentsGenerator {

  public JavaFile generate(AttachmentsModel model) {
    TypeSpec.Builder type =
        TypeSpec.classBuilder(model.generated())
            .addOriginatingElement(model.origin())
            .addJavadoc(
                "The attachment handlers of {@link $T}: return {@link #of} from its {@code"
                    + " attachments()}.\n",
                model.handler())
            .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
            .addMethod(MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE).build());
    CodeBlock.Builder entries = CodeBlock.builder();
    for (int i = 0; i < model.attachments().size(); i++) {
      AttachmentModel a = model.attachments().get(i);
      String constant = Identifiers.constantName(a.type());
      type.addField(
          FieldSpec.builder(String.class, constant, Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
              .addJavadoc("The attachment type of {@link $T#$L}.\n", model.handler(), a.method())
              .initializer("$S", a.type())
              .build());
      entries.add(
          "$L$T.entry($N, $T.of(handler.$N()))",
          i == 0 ? "\n" : ",\n",
          Map.class,
          constant,
          ChildTargetDef.class,
          a.method());
    }
    type.addMethod(
        MethodSpec.methodBuilder("of")
            .addJavadoc("Every attachment type of {@code handler} with its handler.\n\n"
                + "@param handler the handler whose methods give them\n"
                + "@return the attachment handlers by attachment type\n")
            .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
            .returns(
                ParameterizedTypeName.get(
                    ClassName.get(Map.class),
                    ClassName.get(String.class),
                    ParameterizedTypeName.get(
                        ClassName.get(ChildTargetDef.class), WildcardTypeName.subtypeOf(Object.class))))
            .addParameter(model.handlerType(), "handler")
            .addStatement("return $T.ofEntries($>$L$<)", Map.class, entries.build())
            .build());
    return GeneratedFiles.file(model.handler().packageName(), type.build());
  }
}
