package io.cocoindex.processor;

import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

/** A test processor that sees every type and acts in the first round only. */
public abstract class FirstRoundProcessor extends AbstractProcessor {
  private boolean done;

  /** What the processor does in the compilation's first round. */
  protected abstract void firstRound(RoundEnvironment round);

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return Set.of("*");
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public final boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    if (!done) {
      done = true;
      firstRound(round);
    }
    return false;
  }
}
