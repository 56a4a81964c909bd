package io.cocoindex.samples.annotated;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;

/**
 * A text file in a declared directory.
 *
 * @param name the file name, the target state's key
 * @param content its UTF-8 content
 */
@TargetValue
public record FileEntry(@Key String name, String content) {}
