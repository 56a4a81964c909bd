package io.cocoindex.runtime;

/**
 * Where a running update stands, for progress displays ({@link App#progress()}).
 *
 * @param mounted components mounted so far (memoized ones included)
 * @param finished components whose work is done: committed, failed, or skipped as memoized
 * @param memoized components skipped because their input was unchanged
 */
public record RunProgress(long mounted, long finished, long memoized) {}
