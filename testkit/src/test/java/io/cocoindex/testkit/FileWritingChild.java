package io.cocoindex.testkit;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetActionSink;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The child JVM of {@link ChildJvmTest} and {@link KillTrialsTest}. Its first argument picks
 * what it does:
 *
 * <ul>
 *   <li>{@code write stateDir outDir files millisPerFile}: one update of {@link #app}, through
 *       {@link ChildJvm#update};
 *   <li>{@code fail stateDir outDir}: an update whose sink throws;
 *   <li>{@code silent}: sleeps without ever announcing the start of an update;
 *   <li>{@code quit}: exits with code 3 before announcing anything;
 *   <li>{@code hang heartbeatFile}: announces the start, then counts in {@code heartbeatFile}
 *       every 20 ms and never exits by itself.
 * </ul>
 */
public final class FileWritingChild {
  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "write" -> {
        try (App app = app(Path.of(args[1]), Path.of(args[2]), Integer.parseInt(args[3]),
            Long.parseLong(args[4]))) {
          System.out.println("a line of the child's own, copied to the test's output");
          ChildJvm.update(app);
        }
      }
      case "fail" -> {
        try (App app = App.create("files", Environment.builder().dbPath(Path.of(args[1])).build(),
            ctx -> {
              var p = registerRootTargetStatesProvider(ctx, "files",
                  new FilesHandler(TargetActionSink.<FileWrite>of(actions -> {
                    throw new IOException("the disk is full (scripted)");
                  })));
              declareTargetState(ctx, p.targetState("f0", "x"));
            })) {
          ChildJvm.update(app);
        }
      }
      case "silent" -> Thread.sleep(60_000);
      case "quit" -> System.exit(3);
      case "hang" -> {
        ChildJvm.announceStart();
        Path heartbeat = Path.of(args[1]);
        for (long beat = 0; ; beat++) {
          Files.writeString(heartbeat, Long.toString(beat));
          Thread.sleep(20);
        }
      }
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }

  /**
   * An app that writes {@code files} files {@code f00.txt}, {@code f01.txt}... into {@code out},
   * sleeping {@code millisPerFile} after each, in one component (one sink call, file by file).
   */
  static App app(Path state, Path out, int files, long millisPerFile) {
    TargetActionSink<FileWrite> sink = TargetActionSink.of(actions -> {
      for (TargetAction<FileWrite> a : actions) {
        Path file = out.resolve(a.value().name());
        if (a.value().text() == null) {
          Files.deleteIfExists(file);
        } else {
          Files.createDirectories(out);
          Files.writeString(file, a.value().text());
        }
        Thread.sleep(millisPerFile);
      }
    });
    return App.create("files", Environment.builder().dbPath(state).build(), ctx -> {
      var p = registerRootTargetStatesProvider(ctx, "files", new FilesHandler(sink));
      expected(files).forEach((name, text) -> declareTargetState(ctx, p.targetState(name, text)));
    });
  }

  /** What {@link #app} declares: file name to content. */
  static Map<String, String> expected(int files) {
    Map<String, String> out = new TreeMap<>();
    for (int i = 0; i < files; i++) {
      out.put(String.format("f%02d.txt", i), "content of file " + i);
    }
    return out;
  }

  /** What {@code dir} holds: file name to content. */
  static Map<String, String> contents(Path dir) {
    Map<String, String> out = new TreeMap<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        out.put(f.getFileName().toString(), Files.readString(f));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** A file to write ({@code text} non-null) or delete. */
  record FileWrite(String name, String text) {}

  /** One file per target state; the tracking record is its content. */
  record FilesHandler(TargetActionSink<FileWrite> sink)
      implements TargetHandler<String, String, FileWrite> {
    @Override
    public TargetReconcileOutput<FileWrite, String> reconcile(
        StableKey key, String desired, List<String> prev, boolean prevMayBeMissing) {
      String name = key.asString();
      if (desired == null) {
        return TargetReconcileOutput.of(TargetAction.delete(new FileWrite(name, null)), sink, null);
      }
      if (!prevMayBeMissing && !prev.isEmpty() && prev.stream().allMatch(desired::equals)) {
        return null;
      }
      return TargetReconcileOutput.of(
          TargetAction.update(new FileWrite(name, desired)), sink, desired);
    }
  }
}
