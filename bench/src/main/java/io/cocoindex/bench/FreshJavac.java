package io.cocoindex.bench;

import io.cocoindex.annotation.RootTarget;
import io.cocoindex.processor.CocoIndexProcessor;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Workload 9 as a build that runs javac once sees it: each compilation a {@code javac} process
 * of its own, so javac and the processors run from a cold start (class loading, interpreted
 * code) rather than JIT-compiled as in the harness's JVM. Three ways, in rotating order: with
 * the cocoindex processor, without a processor over the sources plus the generated files, and
 * with {@link ReplayProcessor} writing those files. The processors are loaded from a path of
 * their own classes and the API's, as a build gives them; the stand-in also reads the files'
 * text from disk in its process, which the cocoindex processor does not. Informational: the
 * target line is the in-JVM one.
 */
final class FreshJavac {
  private FreshJavac() {}

  static void run(Config cfg, Path tmp, Report report, String module, List<Path> sources,
      List<Path> handWritten, Path generatedRoot) {
    int generated = handWritten.size() - sources.size();
    List<Long> with = new ArrayList<>();
    List<Long> plain = new ArrayList<>();
    List<Long> replay = new ArrayList<>();
    Path copied = tmp.resolve("fresh-javac-processor-path");
    String processorPath = processorPath(copied);
    int iterations = Math.max(1, cfg.compileIterations() / 2);
    for (int i = 0; i < iterations; i++) {
      for (int k = 0; k < 3; k++) {
        int side = (k + i) % 3;
        Path out = tmp.resolve("fresh-javac-" + i + "-" + side);
        List<String> options = switch (side) {
          case 0 -> List.of("-processorpath", processorPath,
              "-processor", CocoIndexProcessor.class.getName());
          case 1 -> List.of("-proc:none");
          default -> List.of("-processorpath", processorPath,
              "-processor", ReplayProcessor.class.getName(),
              "-A" + ReplayProcessor.DIRECTORY_OPTION + "=" + generatedRoot);
        };
        long nanos = compile(side == 1 ? handWritten : sources, out, options);
        EngineWorkloads.deleteTree(out);
        (side == 0 ? with : side == 1 ? plain : replay).add(nanos);
      }
    }
    EngineWorkloads.deleteTree(copied);
    double w = Stats.median(with);
    double pl = Stats.median(plain);
    double rp = Stats.median(replay);
    String fresh = "javac in a process of its own per compilation, " + module;
    report.info("9", fresh + ": with the processor vs the same " + handWritten.size()
            + " files compiled without it",
        "with " + Report.ms(w) + ", plain " + Report.ms(pl),
        String.format(Locale.ROOT, "%+.0f%% time", (w / pl - 1) * 100));
    report.info("9", fresh + ": a processor that only writes the same " + generated
            + " files vs the same " + handWritten.size() + " compiled without it",
        "replay " + Report.ms(rp) + ", plain " + Report.ms(pl),
        String.format(Locale.ROOT, "%+.0f%% time", (rp / pl - 1) * 100));
  }

  /**
   * The processors' class path: the classes of the processor, of the API it reads and of the
   * stand-in, not the harness's whole class path (run from the harness's jar, that is one jar of
   * every dependency, and javac would load the processor from it). From that jar the classes are
   * copied into {@code dir}; run from the modules' own jars or class directories, those are used.
   */
  static String processorPath(Path dir) {
    Set<Path> locations = new LinkedHashSet<>();
    for (Class<?> c : List.of(CocoIndexProcessor.class, RootTarget.class, ReplayProcessor.class)) {
      locations.add(ProcessorBench.location(c));
    }
    unrelocatedJavaPoet().ifPresent(locations::add);
    if (locations.size() > 1) {
      return locations.stream().map(Path::toString)
          .collect(Collectors.joining(File.pathSeparator));
    }
    copyProcessorClasses(locations.iterator().next(), dir);
    return dir.toString();
  }

  /**
   * JavaPoet's jar when the processor runs from its class directory ({@code mvn test}, before
   * the processor's jar relocates JavaPoet into itself): those classes still name JavaPoet's own
   * packages, which the processor path must then hold too.
   */
  private static Optional<Path> unrelocatedJavaPoet() {
    if (!Files.isDirectory(ProcessorBench.location(CocoIndexProcessor.class))) {
      return Optional.empty();
    }
    try {
      return Optional.of(ProcessorBench.location(Class.forName("com.palantir.javapoet.TypeName")));
    } catch (ClassNotFoundException e) {
      return Optional.empty();
    }
  }

  /** Copies the processor's, the API's and the stand-in's class files out of {@code jar}. */
  static void copyProcessorClasses(Path jar, Path dir) {
    try (FileSystem zip = FileSystems.newFileSystem(jar);
        Stream<Path> entries = Files.walk(zip.getPath("/io/cocoindex"))) {
      for (Path entry : entries.filter(e -> e.toString().endsWith(".class")).toList()) {
        String name = entry.toString().substring(1);
        if (isProcessorClass(name)) {
          Path copy = dir.resolve(name);
          Files.createDirectories(copy.getParent());
          Files.copy(entry, copy);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("copying the processor's classes out of " + jar, e);
    }
  }

  /** Whether a class file of the harness's jar belongs to the processor, the API or the stand-in. */
  private static boolean isProcessorClass(String name) {
    if (name.startsWith("io/cocoindex/bench/")) {
      return name.startsWith("io/cocoindex/bench/" + ReplayProcessor.class.getSimpleName());
    }
    return !name.startsWith("io/cocoindex/runtime/") && !name.startsWith("io/cocoindex/samples/");
  }

  /** Runs {@code javac} over {@code sources} into {@code out}; returns its wall time. */
  private static long compile(List<Path> sources, Path out, List<String> extraOptions) {
    Path javac = Path.of(System.getProperty("java.home"), "bin", "javac");
    if (!Files.isExecutable(javac)) {
      throw new IllegalStateException("no javac at " + javac + ": run the benchmark on a JDK");
    }
    try {
      Path classes = Files.createDirectories(out.resolve("classes"));
      Path generated = Files.createDirectories(out.resolve("generated"));
      // An argument file keeps a long list of sources off the command line.
      Path argFile = out.resolve("sources.txt");
      Files.write(argFile, sources.stream().map(p -> quoted(p.toString()))
          .collect(Collectors.toList()), StandardCharsets.UTF_8);
      List<String> command = new ArrayList<>(List.of(javac.toString(), "--release", "17",
          "-classpath", ProcessorBench.apiLocation(), "-d", classes.toString(),
          "-s", generated.toString(), "-Xlint:none", "-encoding", "UTF-8"));
      command.addAll(extraOptions);
      command.add("@" + argFile);
      long start = System.nanoTime();
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int exit = process.waitFor();
      long nanos = System.nanoTime() - start;
      if (exit != 0) {
        throw new IllegalStateException(
            "javac exited with " + exit + " compiling the generated connectors:\n" + output);
      }
      return nanos;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while javac ran", e);
    }
  }

  /** A path as javac's argument files read it: in double quotes, backslashes doubled. */
  private static String quoted(String path) {
    return "\"" + path.replace("\\", "\\\\") + "\"";
  }
}
