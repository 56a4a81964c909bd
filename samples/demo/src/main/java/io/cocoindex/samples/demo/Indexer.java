package io.cocoindex.samples.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.Fingerprint;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.Environment;
import io.cocoindex.samples.localfs.Directory;
import io.cocoindex.samples.localfs.LocalFs;
import io.cocoindex.samples.sqlite.FullTextIndex;
import io.cocoindex.samples.sqlite.IndexSpec;
import io.cocoindex.samples.sqlite.Sqlite;
import io.cocoindex.samples.sqlite.SqliteDatabase;
import io.cocoindex.samples.sqlite.SqliteTable;
import io.cocoindex.samples.sqlite.TableSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The document indexer: every text or Markdown file under the source folder is one memoized
 * processing component (keyed by its relative path, memoized on its content fingerprint) that
 * declares its chunks as rows of the SQLite table {@code chunks} (with an FTS5 index) and one JSON
 * summary in the output folder. Unchanged files are not even re-chunked on a rerun.
 */
final class Indexer {
  static final String APP = "doc-indexer";
  static final ContextKey<SqliteDatabase> INDEX_DB =
      ContextKey.of("index_db", SqliteDatabase.class);
  /** Bumped when chunking or summaries change, so every file is reprocessed once. */
  static final int PIPELINE_VERSION = 1;
  static final TableSchema<Chunk> CHUNKS = TableSchema.of("chunks", Chunk.class, "file", "ordinal");

  /** One chunk of a file. */
  record Chunk(String file, long ordinal, long offset, String text) {}

  /** The JSON summary written per file. */
  record FileSummary(
      String file, String title, int chunks, int characters, int words, String fingerprint) {}

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final Workspace workspace;
  private final Path source;
  private volatile int totalFiles;

  private final Path state;

  Indexer(Workspace workspace, Path source, Path state) {
    this.workspace = workspace;
    this.source = source;
    this.state = state;
  }

  App app(SqliteDatabase db) {
    Environment env = Environment.builder()
        .dbPath(state)
        .provide(INDEX_DB, db)
        .build();
    return App.create(APP, env, this::main);
  }

  private void main(Ctx ctx) {
    Sqlite sqlite = Sqlite.register(ctx, INDEX_DB);
    LocalFs files = LocalFs.register(ctx);
    SqliteTable<Chunk> chunks = sqlite.mountTable(ctx, CHUNKS);
    chunks.declareIndex(ctx, IndexSpec.of("chunks_by_file", "file"));
    chunks.declareFullTextIndex(ctx, new FullTextIndex("chunks_fts", List.of("text")));
    Directory summaries = files.mountDir(ctx, workspace.summaries());
    List<Path> sourceFiles = sourceFiles();
    totalFiles = sourceFiles.size();
    for (Path file : sourceFiles) {
      String rel = source.relativize(file).toString().replace('\\', '/');
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
      Ctx ctx, String rel, byte[] bytes, SqliteTable<Chunk> chunks, Directory summaries) {
    String text = SourceFile.text(bytes);
    List<Chunker.Piece> pieces = Chunker.split(text);
    for (int i = 0; i < pieces.size(); i++) {
      Chunker.Piece p = pieces.get(i);
      chunks.declareRow(ctx, new Chunk(rel, i, p.offset(), p.text()));
    }
    FileSummary summary = new FileSummary(rel, title(text), pieces.size(), text.length(),
        words(text), Fingerprint.ofBytes(bytes).toString());
    try {
      summaries.declareFile(ctx, summaryName(rel), JSON.writeValueAsBytes(summary));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Summary files live flat in the output folder: {@code a/b.md} becomes {@code a__b.md.json}. */
  static String summaryName(String rel) {
    return rel.replace("/", "__") + ".json";
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
