package io.cocoindex.samples.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.StableKey;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.runtime.state.PostgresStateStore;
import io.cocoindex.samples.localfs.Directory;
import io.cocoindex.samples.localfs.LocalFs;
import io.cocoindex.samples.sqlite.SqliteDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * The document indexer: every text or Markdown file under the source folder is one memoized
 * processing component (keyed by its relative path, memoized on its content fingerprint) that
 * declares its chunks as rows of the SQLite table {@code chunks} (with an FTS5 index) and one JSON
 * summary in the output folder. Unchanged files are not even re-chunked on a rerun.
 */
final class Indexer {
  /** The app's name unless {@code --app} gives another. */
  static final String DEFAULT_APP = "doc-indexer";
  /** Bumped when chunking or summaries change, so every file is reprocessed once. */
  static final int PIPELINE_VERSION = 2;

  /** One chunk of a file. */
  record Chunk(String file, long ordinal, long offset, String text) {}

  /** The JSON summary written per file. */
  record FileSummary(
      String file, String title, int chunks, int characters, int words, String fingerprint) {}

  /**
   * The summaries' writer, made when the first summary is: a rerun in which every file is a memo
   * hit writes none, and making it took about a fifth of a second of a fresh JVM.
   */
  private static final class Json {
    static final ObjectMapper WRITER =
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  }

  private final Workspace workspace;
  private final Path source;
  private volatile int totalFiles;
  /** The component path of each file's component ({@code /"a/b.md"}) -> the file. */
  private final Map<String, String> fileComponents = new ConcurrentHashMap<>();
  private PostgresStateStore sharedStore;

  private final String state;
  private final String appName;
  /** Whether main only registers the connectors, for a drop: it reads no source file. */
  private boolean registrationsOnly;
  /** Whether main keys the summaries' folder by its absolute path, as earlier versions did. */
  private boolean summariesByAbsolutePath;

  /**
   * @param state the state store: a folder (embedded) or a JDBC URL (shared PostgreSQL)
   * @param appName the app's name: its tracking in the store, and the maker the connectors
   *     record on the tables they create
   */
  Indexer(Workspace workspace, Path source, String state, String appName) {
    this.workspace = workspace;
    this.source = source;
    this.state = state;
    this.appName = appName;
  }

  /**
   * Makes main register the connectors and mount the outputs only, reading no source file: what
   * a drop needs. A drop runs main and every body it mounts for the providers they register, and
   * the files' components register none (their chunks and summaries go to the providers main
   * registers), so reading every file again, and failing on a source folder that is gone, would
   * buy it nothing.
   *
   * @return this indexer
   */
  Indexer registrationsOnly() {
    this.registrationsOnly = true;
    return this;
  }

  /**
   * Makes main key the summaries' folder by its absolute path, as earlier versions of the demo
   * did: what the tests of the upgrade make a workspace of such a version with.
   *
   * @return this indexer
   */
  Indexer asBeforeRelativeSummaries() {
    this.summariesByAbsolutePath = true;
    return this;
  }

  /** The app on the SQLite target (the default). */
  App app(SqliteDatabase db) {
    return App.create(appName, stateEnvironment().provide(ChunkTarget.SQLITE, db).build(),
        ctx -> main(ctx, ChunkTarget.sqlite(ctx)));
  }

  /** The app writing its chunks to PostgreSQL. */
  App app(DataSource postgres) {
    return App.create(appName, stateEnvironment().provide(ChunkTarget.POSTGRES, postgres).build(),
        ctx -> main(ctx, ChunkTarget.postgres(ctx)));
  }

  /** The embedded store in a folder, or the shared PostgreSQL store for a JDBC URL. */
  private Environment.Builder stateEnvironment() {
    if (state.startsWith("jdbc:")) {
      sharedStore = PostgresStateStore.open(state);
      return Environment.builder().stateStore(sharedStore);
    }
    return Environment.builder().dbPath(Path.of(state));
  }

  /** Closes the shared store this indexer opened, if any (an embedded one closes with its app). */
  void closeStore() {
    if (sharedStore != null) {
      sharedStore.close();
      sharedStore = null;
    }
  }

  private void main(Ctx ctx, ChunkTarget chunks) {
    // Relative to the workspace, the summaries' folder is keyed "summaries": a workspace moved
    // to another folder (its state with it) is the same target, and its rerun changes nothing.
    // A workspace of an earlier version keyed it by its absolute path: its first run under this
    // key writes the summaries again (and runs every file's component: their memos stand on the
    // old folder), and the old key's removal at the end of that run leaves the folder and what
    // the run wrote in it (the connector's "one directory, two keys"). Converged after that run.
    Directory summaries = summariesByAbsolutePath
        ? LocalFs.register(ctx).mountDir(ctx, workspace.home().resolve(Workspace.SUMMARIES))
        : LocalFs.register(ctx, workspace.home()).mountDir(ctx, Workspace.SUMMARIES);
    if (registrationsOnly) {
      return;
    }
    List<Path> sourceFiles = sourceFiles();
    totalFiles = sourceFiles.size();
    for (Path file : sourceFiles) {
      String rel = source.relativize(file).toString().replace('\\', '/');
      fileComponents.put("/" + StableKey.of(rel), rel); // as ComponentFailure names it
      byte[] bytes;
      try {
        bytes = SourceFile.read(file);
      } catch (SourceFile.BadInput bad) {
        ctx.mount(rel, c -> {
          throw bad;
        });
        continue;
      }
      Object input = List.of(PIPELINE_VERSION, rel, Fingerprint.ofBytes(bytes));
      ctx.mountMemo(rel, input, c -> indexFile(c, rel, bytes, chunks, summaries));
    }
  }

  /**
   * The source file whose component {@code component} is (a path as {@code ComponentFailure}
   * gives it), or null when it is no file's: the root, the chunk table's mount.
   */
  String fileOf(String component) {
    return fileComponents.get(component);
  }

  /** Number of source files found by the running (or last) update. */
  int totalFiles() {
    return totalFiles;
  }

  private List<Path> sourceFiles() {
    if (!Files.isDirectory(source)) {
      throw new IllegalArgumentException("source folder " + source + " does not exist or is not"
          + " a directory");
    }
    try (Stream<Path> walk = Files.walk(source)) {
      return walk.filter(Files::isRegularFile).filter(SourceFile::isIndexable).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the source folder " + source, e);
    }
  }

  private static void indexFile(
      Ctx ctx, String rel, byte[] bytes, ChunkTarget chunks, Directory summaries) {
    String text = SourceFile.text(bytes);
    List<Chunker.Piece> pieces = Chunker.split(text);
    for (int i = 0; i < pieces.size(); i++) {
      Chunker.Piece p = pieces.get(i);
      chunks.declare(ctx, new Chunk(rel, i, p.offset(), p.text()));
    }
    FileSummary summary = new FileSummary(rel, title(text), pieces.size(), text.length(),
        words(text), Fingerprint.ofBytes(bytes).toString());
    try {
      summaries.declareFile(ctx, summaryName(rel), Json.WRITER.writeValueAsBytes(summary));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Summary files live flat in the output folder: {@code a/b.md} becomes {@code a__b.md.json}.
   * One name per file: {@code _} and {@code %} are escaped ({@code %5F}, {@code %25}), so
   * {@code __} only ever stands for {@code /} ({@code sub/x.txt} and {@code sub__x.txt} do not
   * meet).
   */
  static String summaryName(String rel) {
    return rel.replace("%", "%25").replace("_", "%5F").replace("/", "__") + ".json";
  }

  private static String title(String text) {
    for (String line : text.split("\n", 20)) {
      String t = line.strip().replaceFirst("^#+\\s*", "");
      if (!t.isEmpty()) {
        return t.length() > 120 ? t.substring(0, 120) : t;
      }
    }
    return "";
  }

  private static int words(String text) {
    int n = 0;
    boolean in = false;
    for (int i = 0; i < text.length(); i++) {
      boolean letter = Character.isLetterOrDigit(text.charAt(i));
      if (letter && !in) {
        n++;
      }
      in = letter;
    }
    return n;
  }
}
