package io.cocoindex.samples.localfs;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;

/**
 * A managed root directory: its absolute, normalized path is its key.
 *
 * @param path the directory's absolute path
 */
@TargetValue
public record DirSpec(@Key String path) {}
