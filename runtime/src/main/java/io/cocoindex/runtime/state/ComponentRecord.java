package io.cocoindex.runtime.state;

/**
 * The stored facts about one processing component.
 *
 * @param path the encoded component path
 * @param memoFingerprint the input fingerprint of its last successful memoized run, or null
 * @param memoDependencies encoded list of (provider path, generation, epoch) it declared on
 * @param memoValues encoded map of memoized function results
 * @param stateCount number of target states it declared in its last successful run
 */
public record ComponentRecord(
    byte[] path,
    byte[] memoFingerprint,
    byte[] memoDependencies,
    byte[] memoValues,
    long stateCount) {}
