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
import javax.annotation.processing.Filer;
import javax.annotation.processing.FilerException;
import javax.lang.model.element.Element;

/**
 * One round's generated files. Each is rendered to text on a worker thread as soon as it is built,
 * while javac's thread goes on reading and validating the round's other elements and then writes
 * the files through the Filer, in the order built (the Filer, like javac's model, belongs to
 * javac's thread). Rendering is JavaPoet's own work on immutable specs, and most of the
 * processor's own time once javac is JIT-compiled (a build daemon, an IDE); it now overlaps
 * javac's checks of each new file's name. From a cold start the JIT compilers hold the other core
 * and it gains nothing there.
 */
public final class RoundFiles {
  private record Pending(Element origin, JavaFile file, Future<String> text) {}

  /** What to do with a file that could not be written. */
  public interface Failure {
    /**
     * {@code generated}, the file's qualified type name, generated for {@code origin}, failed:
     * the Filer refused it ({@link FilerException}), or rendering or writing it threw.
     */
    void failed(Element origin, String generated, Throwable cause);
  }

  private final List<Pending> pending = new ArrayList<>();
  private ExecutorService renderer;

  /** Queues {@code file}, generated for {@code origin}, and starts rendering it. */
  public void add(Element origin, JavaFile file) {
    if (renderer == null) {
      // One worker, which ends once idle for a second even if a round never reached writeAll:
      // javac may run in a long-lived JVM (a build daemon, an IDE).
      ThreadPoolExecutor worker = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(), task -> {
            Thread t = new Thread(task, "cocoindex-processor-render");
            t.setDaemon(true);
            return t;
          });
      worker.allowCoreThreadTimeOut(true);
      renderer = worker;
    }
    pending.add(new Pending(origin, file, renderer.submit(file::toString)));
  }

  /**
   * Writes every queued file in the order added, and stops the worker. A file that failed to
   * render or to write is handed to {@code failed}; the others are still written.
   */
  public void writeAll(Filer filer, Failure failed) {
    try {
      for (Pending p : pending) {
        String name = GeneratedFiles.qualifiedName(p.file());
        try {
          GeneratedFiles.write(filer, p.file(), p.text().get());
        } catch (ExecutionException e) {
          failed.failed(p.origin(), name, e.getCause());
        } catch (UncheckedIOException e) {
          failed.failed(p.origin(), name, e.getCause());
        } catch (RuntimeException | LinkageError | AssertionError e) {
          failed.failed(p.origin(), name, e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failed.failed(p.origin(), name, e);
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
