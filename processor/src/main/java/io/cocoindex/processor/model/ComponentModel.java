package io.cocoindex.processor.model;

/**
 * One record component as its codec sees it.
 *
 * @param name the component (and stored field) name
 * @param type its serialized shape
 */
public record ComponentModel(String name, ValueType type) {}
