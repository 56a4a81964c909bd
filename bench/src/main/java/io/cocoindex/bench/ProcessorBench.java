package io.cocoindex.bench;

import io.cocoindex.annotation.RootTarget;
import io.cocoindex.processor.CocoIndexProcessor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import javax.annotation.processing.Processor;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Workload 9: javac time of a module of annotated connectors, in this JVM, alternating, after
 * warm-up compilations, four ways: with the cocoindex processor; without it ({@code
 * -proc:none}, so nothing is generated); without it over the sources plus the files the
 * processor generates, as if they were written by hand; and with a processor that only writes
 * those same files ({@link ReplayProcessor}). The first against the third is what running the
 * processor costs; the fourth against the third is the part of it that javac charges any
 * processor generating these files; the first against the second also counts compiling the code
 * it writes (serializers, factories, declare APIs), which a module without the processor lacks.
 * {@link FreshJavac} then times three of these ways again with a javac process per compilation.
 */
final class ProcessorBench {
  private ProcessorBench() {}

  static void run(Config cfg, Path tmp, Report report) {
    Path src = tmp.resolve("connectors-src");
    List<Path> sources = generate(src, cfg.connectors());
    // The generated files once, to compile them as plain sources.
    Path pregenerated = tmp.resolve("connectors-pregenerated");
    compile(sources, pregenerated, new CocoIndexProcessor());
    Path generatedRoot = pregenerated.resolve("generated");
    Map<String, String> generatedText = ReplayProcessor.sourcesUnder(generatedRoot);
    List<Path> handWritten = new ArrayList<>(sources);
    for (String name : generatedText.keySet()) {
      handWritten.add(generatedRoot.resolve(name.replace('.', '/') + ".java"));
    }
    List<Long> with = new ArrayList<>();
    List<Long> without = new ArrayList<>();
    List<Long> plain = new ArrayList<>();
    List<Long> replay = new ArrayList<>();
    int generated = 0;
    int warmups = Math.max(1, cfg.compileIterations() / 3);
    for (int i = 0; i < warmups + cfg.compileIterations(); i++) {
      boolean measured = i >= warmups;
      // Rotate which side goes first, so drift on a noisy machine hits every side.
      for (int k = 0; k < 4; k++) {
        int side = (k + i) % 4;
        Path out = tmp.resolve("connectors-out-" + i + "-" + side);
        long start = System.nanoTime();
        int files = switch (side) {
          case 0 -> compile(sources, out, new CocoIndexProcessor());
          case 1 -> compile(sources, out, null);
          case 2 -> compile(handWritten, out, null);
          default -> compile(sources, out, new ReplayProcessor(generatedText));
        };
        long nanos = System.nanoTime() - start;
        if (side == 0) {
          generated = files;
        }
        EngineWorkloads.deleteTree(out);
        if (measured) {
          (side == 0 ? with : side == 1 ? without : side == 2 ? plain : replay).add(nanos);
        }
      }
    }
    double w = Stats.median(with);
    double wo = Stats.median(without);
    double pl = Stats.median(plain);
    double rp = Stats.median(replay);
    String module = String.format(Locale.ROOT, "%d annotated connectors (%d files)",
        cfg.connectors(), sources.size());
    report.check("9", "javac, " + module + ": with the processor vs the same "
            + (sources.size() + generated) + " files compiled without it",
        "with " + Report.ms(w) + ", plain " + Report.ms(pl), w / pl - 1,
        String.format(Locale.ROOT, "%+.0f%% time", (w / pl - 1) * 100), 0.25, true, "<= +25%");
    report.info("9", "javac, " + module + ": a processor that only writes the same " + generated
            + " files vs the same " + (sources.size() + generated)
            + " compiled without it (javac's charge for generating them)",
        "replay " + Report.ms(rp) + ", plain " + Report.ms(pl),
        String.format(Locale.ROOT, "%+.0f%% time", (rp / pl - 1) * 100));
    report.info("9", "javac, " + module + ": with the processor (+" + generated
            + " generated files) vs without it (nothing generated)",
        "with " + Report.ms(w) + ", without " + Report.ms(wo),
        String.format(Locale.ROOT, "%+.0f%% time", (w / wo - 1) * 100));
    FreshJavac.run(cfg, tmp, report, module, sources, handWritten, generatedRoot);
    EngineWorkloads.deleteTree(src);
    EngineWorkloads.deleteTree(pregenerated);
  }

  /** Compiles with {@code processor}, or none when null; returns the number of generated files. */
  static int compile(List<Path> sources, Path out, Processor processor) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException("no system Java compiler: run the benchmark on a JDK");
    }
    Path classes = out.resolve("classes");
    Path generated = out.resolve("generated");
    try {
      Files.createDirectories(classes);
      Files.createDirectories(generated);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<String> options = new ArrayList<>(List.of("--release", "17", "-classpath",
          apiLocation(), "-d", classes.toString(), "-s", generated.toString(), "-Xlint:none"));
      if (processor == null) {
        options.add("-proc:none");
      }
      JavaCompiler.CompilationTask task = javac.getTask(null, files, diagnostics, options, null,
          files.getJavaFileObjectsFromPaths(sources));
      if (processor != null) {
        task.setProcessors(List.of(processor));
      }
      boolean ok = task.call();
      if (!ok) {
        StringBuilder sb = new StringBuilder();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
          sb.append(d).append('\n');
        }
        throw new IllegalStateException("compiling the generated connectors failed:\n" + sb);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (Stream<Path> s = Files.walk(generated)) {
      return (int) s.filter(p -> p.toString().endsWith(".java")).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where the cocoindex API's classes are: the class path of the compilations. */
  static String apiLocation() {
    return location(RootTarget.class).toString();
  }

  /** The jar or class directory {@code c} was loaded from. */
  static Path location(Class<?> c) {
    try {
      return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("where " + c.getName() + " was loaded from", e);
    }
  }

  /** Writes {@code count} flat connectors (value, part, tracking record, action, handler). */
  static List<Path> generate(Path dir, int count) {
    Path pkg = dir.resolve("bench").resolve("gen");
    List<Path> out = new ArrayList<>();
    try {
      Files.createDirectories(pkg);
      for (int i = 0; i < count; i++) {
        String n = "Item" + i;
        out.add(write(pkg, n, "package bench.gen;\n\n"
            + "import io.cocoindex.annotation.Key;\n"
            + "import io.cocoindex.annotation.TargetValue;\n"
            + "import java.util.List;\n"
            + "import java.util.Map;\n\n"
            + "/** A declared item. */\n"
            + "@TargetValue\n"
            + "public record " + n + "(@Key String id, String title, long size, List<String> tags,\n"
            + "    Map<String, String> attributes, " + n + "Part part) {}\n"));
        out.add(write(pkg, n + "Part", "package bench.gen;\n\n"
            + "import io.cocoindex.annotation.TargetValue;\n\n"
            + "/** A nested part. */\n"
            + "@TargetValue\n"
            + "public record " + n + "Part(String name, int order, byte[] data) {}\n"));
        out.add(write(pkg, n + "Record", "package bench.gen;\n\n"
            + "import io.cocoindex.Fingerprint;\n"
            + "import io.cocoindex.annotation.TrackingRecord;\n\n"
            + "/** What is remembered of an item. */\n"
            + "@TrackingRecord\n"
            + "public record " + n + "Record(Fingerprint content, String title) {}\n"));
        out.add(write(pkg, n + "Action", "package bench.gen;\n\n"
            + "import io.cocoindex.annotation.ActionValue;\n\n"
            + "/** A write or delete of an item. */\n"
            + "@ActionValue\n"
            + "public record " + n + "Action(String id, String title, long size, boolean delete) {}\n"));
        out.add(write(pkg, n + "Handler", "package bench.gen;\n\n"
            + "import io.cocoindex.Fingerprint;\n"
            + "import io.cocoindex.StableKey;\n"
            + "import io.cocoindex.TargetAction;\n"
            + "import io.cocoindex.TargetActionSink;\n"
            + "import io.cocoindex.TargetHandler;\n"
            + "import io.cocoindex.TargetReconcileOutput;\n"
            + "import io.cocoindex.annotation.RootTarget;\n"
            + "import java.util.List;\n"
            + "import java.util.Map;\n"
            + "import java.util.concurrent.ConcurrentHashMap;\n\n"
            + "/** Keeps items in a map. */\n"
            + "@RootTarget(provider = \"bench/item" + i + "\", name = \"" + n + "\")\n"
            + "public final class " + n + "Handler\n"
            + "    implements TargetHandler<" + n + ", " + n + "Record, " + n + "Action> {\n"
            + "  private final Map<String, " + n + "Action> items = new ConcurrentHashMap<>();\n"
            + "  private final TargetActionSink<" + n + "Action> sink = TargetActionSink.of(this::apply);\n\n"
            + "  void apply(List<TargetAction<" + n + "Action>> actions) {\n"
            + "    for (TargetAction<" + n + "Action> a : actions) {\n"
            + "      if (a.value().delete()) {\n"
            + "        items.remove(a.value().id());\n"
            + "      } else {\n"
            + "        items.put(a.value().id(), a.value());\n"
            + "      }\n"
            + "    }\n"
            + "  }\n\n"
            + "  @Override\n"
            + "  public TargetReconcileOutput<" + n + "Action, " + n + "Record> reconcile(\n"
            + "      StableKey key, " + n + " desired, List<" + n + "Record> prev,\n"
            + "      boolean prevMayBeMissing) {\n"
            + "    if (desired == null) {\n"
            + "      if (prev.isEmpty() && !prevMayBeMissing) {\n"
            + "        return null;\n"
            + "      }\n"
            + "      return TargetReconcileOutput.of(TargetAction.delete(\n"
            + "          new " + n + "Action(key.toString(), null, 0, true)), sink, null);\n"
            + "    }\n"
            + "    " + n + "Record record = new " + n + "Record(Fingerprint.of(desired), desired.title());\n"
            + "    if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(record::equals)) {\n"
            + "      return null;\n"
            + "    }\n"
            + "    " + n + "Action action = new " + n + "Action(desired.id(), desired.title(), desired.size(), false);\n"
            + "    return TargetReconcileOutput.of(prev.isEmpty() ? TargetAction.create(action)\n"
            + "        : TargetAction.update(action), sink, record);\n"
            + "  }\n"
            + "}\n"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Path write(Path pkg, String name, String text) throws IOException {
    Path file = pkg.resolve(name + ".java");
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }
}
