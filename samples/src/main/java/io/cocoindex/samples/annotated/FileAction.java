package io.cocoindex.samples.annotated;

import io.cocoindex.annotation.ActionValue;

/**
 * Write a file, or delete it.
 *
 * @param name the file name
 * @param content the content to write; {@code null} deletes the file
 */
@ActionValue
public record FileAction(String name, String content) {}
