package io.cocoindex.processor.model;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;

/**
 * Children that may be containers themselves (their handler is a {@code @NestedContainer}): a
 * target class declaring them gets {@code declare<Name>} and {@code mount<Name>}.
 *
 * @param container what the two methods declare: the nested container's noun, and the child value
 *     and key of the target class they are added to
 * @param targetClass the nested container's generated {@code <Name>Target}, which they return
 * @param childValue the value type of the nested container's own children
 * @param recurring whether the nested container's children have the same handler class as the
 *     children it is among (a folder of items among items): then any target class declaring them
 *     other than {@code targetClass} also gets {@code as<Name>()}, viewing its children as those
 *     of a nested container, so one piece of code serves every level
 * @param isPublic whether {@code targetClass} is public (its handler is): the methods returning it
 *     are public only then, as a caller outside the package could use nothing they return
 */
public record NestedTarget(
    DeclaredTarget container,
    ClassName targetClass,
    TypeName childValue,
    boolean recurring,
    boolean isPublic) {}
