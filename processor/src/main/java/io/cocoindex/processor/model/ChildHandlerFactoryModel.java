package io.cocoindex.processor.model;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;
import javax.lang.model.element.TypeElement;

/**
 * The child-handler factory of a container handler.
 *
 * @param handler the container handler class
 * @param handlerType the handler as the factory takes it (with wildcards if generic)
 * @param factory the generated {@code <Handler>_ChildHandlerFactory}
 * @param action the container's action type {@code A}
 * @param childValue the children's value type
 * @param method the {@code @ChildHandler} method
 * @param nested the handler is a {@code @NestedContainer}, whose sink is usually shared by every
 *     handler of its kind: the factory is then built from any of them
 * @param origin the handler's element
 */
public record ChildHandlerFactoryModel(
    ClassName handler,
    TypeName handlerType,
    ClassName factory,
    TypeName action,
    TypeName childValue,
    String method,
    boolean nested,
    TypeElement origin) {}
