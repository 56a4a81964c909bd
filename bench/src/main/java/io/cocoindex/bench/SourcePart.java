package io.cocoindex.bench;

/**
 * One component's share of the source as the source lists it, before its rows are read: which
 * part, and the revision the source reports for it (as a directory listing gives a file's
 * modification time, or an object store an object's ETag).
 *
 * @param component the component's number
 * @param revision changes whenever the part's rows do
 */
public record SourcePart(int component, long revision) {}
