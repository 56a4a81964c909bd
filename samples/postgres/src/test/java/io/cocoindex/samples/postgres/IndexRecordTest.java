package io.cocoindex.samples.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.TargetAction;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.statediff.ManagedBy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Index records of earlier versions, which named an index by its declared name alone. */
class IndexRecordTest {
  static final CodecRegistry CODECS = CodecRegistry.standard();

  @Test
  void aRecordStoredAsAnIndexSpecReadsWithItsDeclaredNameAsItsName() {
    IndexSpec spec = IndexSpec.btree("docs_lookup", "title");
    byte[] stored = CODECS.<IndexSpec>codecFor(IndexSpec.class).encode(spec);
    IndexRecord read = CODECS.<IndexRecord>codecFor(IndexRecord.class).decode(stored);
    assertThat(read).isEqualTo(
        new IndexRecord("docs_lookup", List.of("title"), false, "btree", null));
    assertThat(read.withPhysicalName().physicalName()).isEqualTo("docs_lookup");
  }

  @Test
  void anIndexOfAnEarlierVersionIsRenamedOnce() throws Exception {
    TableHandler tables = new TableHandler(Map.of("main_db", PostgresServer.DATA_SOURCE));
    TableAction docs = new TableAction("main_db", "public", "docs",
        List.of(new ColumnDef("id", "bigint"), new ColumnDef("title", "text")), List.of("id"),
        List.of(), ManagedBy.USER); // a system-managed table would be looked up on the server
    IndexHandler indexes = tables.rows(docs).index();
    IndexSpec spec = IndexSpec.btree("docs_lookup", "title");
    IndexRecord old = new IndexRecord("docs_lookup", List.of("title"), false, "btree", null);

    TargetReconcileOutput<IndexAction, IndexRecord> out =
        indexes.reconcile(StableKey.of("docs_lookup"), spec, List.of(old), false);
    assertThat(out.action()).isEqualTo(TargetAction.update(
        new IndexAction("public", "docs", List.of("docs_lookup"), "docs__docs_lookup", spec,
            List.of(old.withPhysicalName()))));
    assertThat(out.trackingRecord()).isEqualTo(
        new IndexRecord("docs_lookup", List.of("title"), false, "btree", "docs__docs_lookup"));
    assertThat(indexes.reconcile(StableKey.of("docs_lookup"), spec,
        List.of(out.trackingRecord()), false)).isNull();
  }
}
