package io.cocoindex.processor.model;

import com.palantir.javapoet.TypeName;

/**
 * Something a generated {@code declare<Name>} method declares: a root target state, a child, or
 * an attachment.
 *
 * @param name the noun in UpperCamelCase ({@code Row} gives {@code declareRow})
 * @param value the value type
 * @param key how the key is found
 */
public record DeclaredTarget(String name, TypeName value, KeyModel key) {}
