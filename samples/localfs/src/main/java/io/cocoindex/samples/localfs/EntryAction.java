package io.cocoindex.samples.localfs;

import io.cocoindex.annotation.ActionValue;

/**
 * What the entry sink does to one path.
 *
 * @param path the entry's absolute path
 * @param directory the entry is (or becomes) a directory
 * @param content the bytes to write to a file
 * @param remove remove the entry: the file, or the directory with its contents
 * @param replaceKind the path may hold an entry of either kind that the connector wrote (a file
 *     becomes a directory or back, maybe after an interrupted run): remove whichever is there
 *     first; with {@code remove}, that is all
 */
@ActionValue
public record EntryAction(
    String path, boolean directory, byte[] content, boolean remove, boolean replaceKind) {}
