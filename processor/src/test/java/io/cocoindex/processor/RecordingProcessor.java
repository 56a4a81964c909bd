package io.cocoindex.processor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Filer;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;

/**
 * Runs {@link CocoIndexProcessor} and records the source files it creates, which compile-testing
 * does not show for a failed compilation: to check that an element with errors generates nothing.
 */
final class RecordingProcessor extends AbstractProcessor {
  private final CocoIndexProcessor delegate = new CocoIndexProcessor();
  final List<String> created = new CopyOnWriteArrayList<>();
  /** The originating elements of each created file, by the file's type name. */
  final Map<String, List<String>> origins = new ConcurrentHashMap<>();

  @Override
  public synchronized void init(ProcessingEnvironment env) {
    super.init(env);
    Filer filer = env.getFiler();
    Filer recording =
        (Filer)
            Proxy.newProxyInstance(
                Filer.class.getClassLoader(),
                new Class<?>[] {Filer.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("createSourceFile")) {
                    created.add(String.valueOf(args[0]));
                    Element[] elements = args.length > 1 ? (Element[]) args[1] : new Element[0];
                    origins.put(
                        String.valueOf(args[0]),
                        Arrays.stream(elements).map(String::valueOf).toList());
                  }
                  try {
                    return method.invoke(filer, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    delegate.init(
        (ProcessingEnvironment)
            Proxy.newProxyInstance(
                ProcessingEnvironment.class.getClassLoader(),
                new Class<?>[] {ProcessingEnvironment.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getFiler")) {
                    return recording;
                  }
                  try {
                    return method.invoke(env, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                }));
  }

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return delegate.getSupportedAnnotationTypes();
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return delegate.getSupportedSourceVersion();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    return delegate.process(annotations, round);
  }
}
