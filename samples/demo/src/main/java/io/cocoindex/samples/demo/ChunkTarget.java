package io.cocoindex.samples.demo;

import io.cocoindex.ContextKey;
import io.cocoindex.Ctx;
import io.cocoindex.samples.postgres.IndexSpec;
import io.cocoindex.samples.postgres.TableHandler;
import io.cocoindex.samples.postgres.TableSchema;
import io.cocoindex.samples.postgres.TableTarget;
import io.cocoindex.samples.postgres.Tables;
import io.cocoindex.samples.sqlite.FullTextIndex;
import io.cocoindex.samples.sqlite.Sqlite;
import io.cocoindex.samples.sqlite.SqliteDatabase;
import io.cocoindex.samples.sqlite.SqliteTable;
import java.util.List;
import javax.sql.DataSource;

/**
 * Where the chunks go: the SQLite table {@code chunks} with an FTS5 index (the default), or the
 * PostgreSQL table {@code public.chunks} with an index on the file column ({@code --target}).
 */
interface ChunkTarget {
  ContextKey<SqliteDatabase> SQLITE = ContextKey.of("index_db", SqliteDatabase.class);
  ContextKey<DataSource> POSTGRES = ContextKey.of("index_pg", DataSource.class);

  /** Declares one chunk row, from the calling component. */
  void declare(Ctx ctx, Indexer.Chunk chunk);

  /** Registers the provider and mounts the chunk table: call once per run, from main. */
  static ChunkTarget sqlite(Ctx ctx) {
    SqliteTable<Indexer.Chunk> chunks = Sqlite.register(ctx, SQLITE).mountTable(ctx,
        io.cocoindex.samples.sqlite.TableSchema.of("chunks", Indexer.Chunk.class, "file",
            "ordinal"));
    chunks.declareIndex(ctx, io.cocoindex.samples.sqlite.IndexSpec.of("chunks_by_file", "file"));
    chunks.declareFullTextIndex(ctx, new FullTextIndex("chunks_fts", List.of("text")));
    return chunks::declareRow;
  }

  /** The PostgreSQL variant. */
  static ChunkTarget postgres(Ctx ctx) {
    TableSchema<Indexer.Chunk> schema =
        TableSchema.of(Indexer.Chunk.class).primaryKey("file", "ordinal").build();
    TableTarget chunks = Tables.register(ctx, TableHandler.of(ctx, POSTGRES))
        .mountTable(ctx, schema.table(POSTGRES, "public", "chunks"));
    chunks.declareIndex(ctx, IndexSpec.btree("chunks_by_file", "file"));
    return (c, chunk) -> chunks.declareRow(c, schema.row(chunk));
  }
}
