package io.cocoindex.samples.annotated;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;
import java.util.Map;

/**
 * A metadata attachment of a directory: written as {@code .<name>.properties}, sorted by key.
 *
 * @param name the metadata file's name, the attachment's key
 * @param properties its entries
 */
@TargetValue
public record Metadata(@Key String name, Map<String, String> properties) {}
