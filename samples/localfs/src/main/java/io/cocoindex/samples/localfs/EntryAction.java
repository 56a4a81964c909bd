package io.cocoindex.samples.localfs;

import io.cocoindex.annotation.ActionValue;

/**
 * What the entry sink does to one path.
 *
 * @param path the entry's absolute path
 * @param directory the entry is (or becomes) a directory
 * @param content the bytes to write to a file
 * @param remove remove whatever is at the path (a file or a tree)
 * @param replaceKind a file becomes a directory or back: remove the old one first
 */
@ActionValue
public record EntryAction(
    String path, boolean directory, byte[] content, boolean remove, boolean replaceKind) {}
