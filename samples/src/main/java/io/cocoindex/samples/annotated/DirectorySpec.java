package io.cocoindex.samples.annotated;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;

/**
 * A directory the connector owns, by its path relative to the connector's base folder.
 *
 * @param path the relative path, the target state's key
 */
@TargetValue
public record DirectorySpec(@Key String path) {}
