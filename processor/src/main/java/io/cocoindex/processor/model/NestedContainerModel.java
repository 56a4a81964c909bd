package io.cocoindex.processor.model;

import java.util.Optional;

/**
 * A validated {@code @NestedContainer} handler: the target class of its containers and, unless
 * its {@code @ContainerTarget} generates it already, its child-handler factory.
 *
 * @param target the generated {@code <Name>Target}
 * @param childHandlerFactory the factory to generate
 */
public record NestedContainerModel(
    TargetClassModel target, Optional<ChildHandlerFactoryModel> childHandlerFactory) {}
