package io.cocoindex.processor.generate;

import com.palantir.javapoet.JavaFile;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.annotation.processing.Filer;
import javax.annotation.processing.FilerException;
import javax.lang.model.element.Element;

/**
 * One round's generated files. Each is built with JavaPoet and rendered to text on a worker thread
 * as soon as its model is validated, while javac's thread goes on reading and validating the
 * round's other elements; javac's thread then writes the files through the Filer in the order
 * added (the Filer, like javac's model, belongs to javac's thread). A generator reads only its
 * immutable model, whose one javac object, the originating element, it only stores. Building and
 * rendering were most of the processor's own time; they now overlap javac's work, its checks of
 * each new file's name above all.
 */
public final class RoundFiles {
  private record Rendered(JavaFile file, String text) {}

  private record Pending(Element origin, Future<Rendered> rendered) {}

  /** What to do with a file that could not be built, rendered or written. */
  public interface Failure {
    /**
     * The file generated for {@code origin}, of type {@code generated} (null when building it
     * failed), failed: the Filer refused it ({@link FilerException}), or building, rendering or
     * writing it threw.
     */
    void failed(Element origin, String generated, Throwable cause);
  }

  /** How long the worker waits for work before it ends, if {@link #writeAll} never stops it. */
  public static final long IDLE_SECONDS = 10;

  private final List<Pending> pending = new ArrayList<>();
  private ExecutorService renderer;

  /** Queues the file {@code build} makes for {@code origin}; the worker starts building it. */
  public void add(Element origin, Supplier<JavaFile> build) {
    if (renderer == null) {
      // One worker, stopped by writeAll, which also ends once idle for ten seconds should a
      // round never reach writeAll: javac may run in a long-lived JVM (a build daemon, an IDE).
      ThreadPoolExecutor worker = new ThreadPoolExecutor(1, 1, IDLE_SECONDS, TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(), task -> {
            Thread t = new Thread(task, "cocoindex-processor-render");
            t.setDaemon(true);
            return t;
          });
      worker.allowCoreThreadTimeOut(true);
      renderer = worker;
    }
    pending.add(new Pending(origin, renderer.submit(() -> {
      JavaFile file = build.get();
      return new Rendered(file, file.toString());
    })));
  }

  /**
   * Writes every queued file in the order added, and stops the worker. A file that failed to be
   * built, rendered or written is handed to {@code failed}; the others are still written.
   */
  public void writeAll(Filer filer, Failure failed) {
    try {
      for (int i = 0; i < pending.size(); i++) {
        Pending p = pending.get(i);
        String name = null;
        try {
          Rendered r = p.rendered().get();
          name = GeneratedFiles.qualifiedName(r.file());
          GeneratedFiles.write(filer, r.file(), r.text());
        } catch (ExecutionException e) {
          failed.failed(p.origin(), name, e.getCause());
        } catch (UncheckedIOException e) {
          failed.failed(p.origin(), name, e.getCause());
        } catch (RuntimeException | LinkageError | AssertionError e) {
          failed.failed(p.origin(), name, e);
        } catch (InterruptedException e) {
          // Each file not written is reported, this one and the rest: a file left out silently
          // would surface only as "cannot find symbol" wherever it is used.
          Thread.currentThread().interrupt();
          for (Pending rest : pending.subList(i, pending.size())) {
            failed.failed(rest.origin(), rest == p ? name : null, e);
          }
          return;
        }
      }
    } finally {
      pending.clear();
      if (renderer != null) {
        renderer.shutdownNow();
        renderer = null;
      }
    }
  }
}
