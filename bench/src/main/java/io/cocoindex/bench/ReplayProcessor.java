package io.cocoindex.bench;

import io.cocoindex.processor.CocoIndexProcessor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Map;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

/**
 * Workload 9's floor: a processor that, in the first round carrying the cocoindex annotations,
 * writes source files given to it as text, and does nothing else. Compiling with it pays what
 * javac charges any processor that generates these files (the rounds that enter every tree
 * again, the Filer's checks of each new name, the files' creation) without the cocoindex
 * processor's own reading, validating and writing.
 */
final class ReplayProcessor extends AbstractProcessor {
  private final Map<String, String> sources;
  private boolean written;

  /** {@code sources}: each file's text by the qualified name of the type it declares. */
  ReplayProcessor(Map<String, String> sources) {
    this.sources = Map.copyOf(sources);
  }

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    // The same as the cocoindex processor's, so that javac runs it in the same rounds.
    return new CocoIndexProcessor().getSupportedAnnotationTypes();
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    if (written || annotations.isEmpty()) {
      return false;
    }
    written = true;
    for (Map.Entry<String, String> file : sources.entrySet()) {
      try (Writer out = processingEnv.getFiler().createSourceFile(file.getKey()).openWriter()) {
        out.write(file.getValue());
      } catch (IOException e) {
        throw new UncheckedIOException("writing " + file.getKey(), e);
      }
    }
    return false;
  }
}
