package io.cocoindex.samples.localfs;

import io.cocoindex.annotation.ActionValue;

/**
 * Ensure a root directory exists, or remove it with everything in it.
 *
 * @param path the directory's absolute path
 * @param remove remove the tree instead of ensuring the directory
 */
@ActionValue
public record DirAction(String path, boolean remove) {}
