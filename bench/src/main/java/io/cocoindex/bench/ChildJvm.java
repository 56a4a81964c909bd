package io.cocoindex.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A bench class run in a fresh JVM of this Java, on this class path, for the measurements that
 * must not share a JVM with the harness (workload 6's small heap, {@code Compare}'s loading
 * orders).
 */
final class ChildJvm {
  private ChildJvm() {}

  /**
   * Runs {@code main} with {@code jvmFlags} and {@code args}, hands every line it prints
   * (standard error included) to {@code lines}, and returns its exit code. A child still running
   * when this returns (the reading failed, or this thread was interrupted) is killed.
   */
  static int run(List<String> jvmFlags, Class<?> main, List<String> args,
      Consumer<String> lines) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(args);
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      try (BufferedReader out = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          lines.accept(line);
        }
      }
      return child.waitFor();
    } finally {
      if (child.isAlive()) {
        child.destroyForcibly();
      }
    }
  }
}
