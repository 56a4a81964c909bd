package io.cocoindex.samples.localfs;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;

/**
 * A managed root directory: its absolute, normalized path is its key, or its path relative to
 * the base of a {@link LocalFs#register(io.cocoindex.Ctx, java.nio.file.Path)}.
 *
 * @param path the directory's absolute path, or its '/'-separated path relative to the base
 */
@TargetValue
public record DirSpec(@Key String path) {}
