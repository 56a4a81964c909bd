package io.cocoindex.bench;

import io.cocoindex.processor.CocoIndexProcessor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
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
 *
 * <p>Public, with a constructor javac can call, for a javac process of its own: there it reads
 * the files under the directory given as {@code -A}{@value #DIRECTORY_OPTION}{@code =DIR}.
 */
public final class ReplayProcessor extends AbstractProcessor {
  /** The option naming the directory of sources to write, when javac creates this processor. */
  public static final String DIRECTORY_OPTION = "cocoindex.bench.replay";

  private Map<String, String> sources;
  private boolean written;

  /** For javac's {@code -processor}: the sources are read from {@value #DIRECTORY_OPTION}. */
  public ReplayProcessor() {}

  /** {@code sources}: each file's text by the qualified name of the type it declares. */
  ReplayProcessor(Map<String, String> sources) {
    this.sources = Map.copyOf(sources);
  }

  /** The {@code .java} files under {@code root}, by the qualified names their paths give. */
  static Map<String, String> sourcesUnder(Path root) {
    Map<String, String> sources = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        String relative = root.relativize(p).toString();
        sources.put(
            relative.substring(0, relative.length() - ".java".length())
                .replace(p.getFileSystem().getSeparator(), "."),
            Files.readString(p, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the sources under " + root, e);
    }
    return sources;
  }

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    // The same as the cocoindex processor's, so that javac runs it in the same rounds.
    return new CocoIndexProcessor().getSupportedAnnotationTypes();
  }

  @Override
  public Set<String> getSupportedOptions() {
    return Set.of(DIRECTORY_OPTION);
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
    if (sources == null) {
      String directory = processingEnv.getOptions().get(DIRECTORY_OPTION);
      if (directory == null) {
        throw new IllegalStateException(
            "no sources to write: pass -A" + DIRECTORY_OPTION + "=DIR to javac");
      }
      sources = sourcesUnder(Path.of(directory));
    }
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
