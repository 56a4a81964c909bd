package io.cocoindex.processor.model;

import com.palantir.javapoet.ClassName;
import java.util.List;
import javax.lang.model.element.TypeElement;

/**
 * A record whose codec is generated.
 *
 * @param record the record
 * @param codec the generated codec class, {@code Outer_Inner_Codec}
 * @param components the components in declaration order (the stored field order)
 * @param origin the record's element, the generated file's originating element
 */
public record CodecModel(
    ClassName record, ClassName codec, List<ComponentModel> components, TypeElement origin) {
  public CodecModel {
    components = List.copyOf(components);
  }
}
