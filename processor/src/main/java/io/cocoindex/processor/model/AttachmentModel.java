package io.cocoindex.processor.model;

/**
 * One {@code @Attachment} method of a handler.
 *
 * @param type the attachment type name, as registered
 * @param method the handler method returning the attachment handler
 * @param target what {@code declare<Type>} declares
 */
public record AttachmentModel(String type, String method, DeclaredTarget target) {}
