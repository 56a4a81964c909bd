package io.cocoindex.processor.model;

import java.util.Optional;

/**
 * A validated root handler: its user-facing API and, for a container, its child-handler factory.
 *
 * @param api the API classes to generate
 * @param childHandlerFactory the factory of a container handler
 */
public record HandlerModel(TargetApiModel api, Optional<ChildHandlerFactoryModel> childHandlerFactory) {}
