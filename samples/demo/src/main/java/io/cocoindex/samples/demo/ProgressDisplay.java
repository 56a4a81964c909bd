package io.cocoindex.samples.demo;

import io.cocoindex.runtime.App;
import io.cocoindex.runtime.RunProgress;
import java.io.PrintStream;
import java.util.function.IntSupplier;

/**
 * Shows an update's progress: a redrawn bar on a terminal, a plain line per quarter otherwise
 * (logs and CI stay readable).
 */
final class ProgressDisplay implements AutoCloseable {
  private static final int WIDTH = 30;

  private final App app;
  private final IntSupplier total;
  private final PrintStream out;
  private final boolean terminal;
  private final Thread thread;
  private volatile boolean done;
  private int lastQuarter;

  ProgressDisplay(App app, IntSupplier total, PrintStream out, boolean terminal) {
    this.app = app;
    this.total = total;
    this.out = out;
    this.terminal = terminal;
    this.thread = new Thread(this::loop, "progress");
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    while (!done) {
      show(app.progress());
      try {
        Thread.sleep(terminal ? 100 : 500);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void show(RunProgress p) {
    int files = total.getAsInt();
    if (p == null || files <= 0) {
      return;
    }
    long finished = Math.min(files, Math.max(0, p.finished()));
    if (terminal) {
      int filled = (int) (WIDTH * finished / files);
      out.printf("\r  indexing [%s%s] %d/%d files, %d unchanged", "#".repeat(filled),
          "-".repeat(WIDTH - filled), finished, files, p.memoized());
      out.flush();
    } else {
      int quarter = (int) (4 * finished / files);
      if (quarter > lastQuarter && quarter < 4) {
        lastQuarter = quarter;
        out.printf("  indexing: %d/%d files%n", finished, files);
      }
    }
  }

  @Override
  public void close() {
    done = true;
    thread.interrupt();
    try {
      thread.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (terminal) {
      out.print("\r" + " ".repeat(WIDTH + 50) + "\r");
      out.flush();
    }
  }
}
