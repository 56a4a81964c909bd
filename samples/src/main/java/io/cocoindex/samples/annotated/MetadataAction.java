package io.cocoindex.samples.annotated;

import io.cocoindex.annotation.ActionValue;
import java.util.Map;

/**
 * Write a metadata file, or delete it.
 *
 * @param name the metadata name
 * @param properties the entries to write; {@code null} deletes the file
 */
@ActionValue
public record MetadataAction(String name, Map<String, String> properties) {}
