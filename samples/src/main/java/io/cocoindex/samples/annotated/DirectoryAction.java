package io.cocoindex.samples.annotated;

import io.cocoindex.annotation.ActionValue;

/**
 * Ensure a directory exists, or remove it with its contents.
 *
 * @param path the relative path
 * @param remove remove it (the container is no longer declared) instead of ensuring it
 */
@ActionValue
public record DirectoryAction(String path, boolean remove) {}
