package io.cocoindex.runtime;

import static io.cocoindex.TargetStates.declareTargetState;
import static io.cocoindex.TargetStates.declareTargetStateWithChild;
import static io.cocoindex.TargetStates.mountTarget;
import static io.cocoindex.TargetStates.registerRootTargetStatesProvider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.ChildTargetDef;
import io.cocoindex.StableKey;
import io.cocoindex.TargetChildInvalidation;
import io.cocoindex.TargetHandler;
import io.cocoindex.TargetReconcileOutput;
import io.cocoindex.TargetStateProvider;
import io.cocoindex.runtime.inspect.StatusReport;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Readable inspection of tracked state: counts per provider and unsettled states. */
class StatusTest extends EngineTestBase {
  @Test
  void statusListsTrackedStatesPerProviderAndWhatAFailedRunLeftUnsettled() {
    Rows rows = new Rows();
    Tables tables = new Tables(rows);
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", tables.handler);
      TargetStateProvider<String> docs =
          mountTarget(ctx, p.targetState("docs", new Tables.TableSpec("g1")));
      declareTargetState(ctx, docs.targetState("r1", "v1"));
      declareTargetState(ctx, docs.targetState("r2", "v1"));
    });
    app.update();
    StatusReport status = app.status();
    assertThat(status.providers()).containsOnlyKeys("tables", "tables/docs");
    assertThat(status.providers().get("tables/docs"))
        .containsExactly(new StableKey.Str("r1"), new StableKey.Str("r2"));
    assertThat(status.unsettled()).isEmpty();
    assertThat(status.total()).isEqualTo(3);

    app.dropState();
    assertThat(app.status().total()).isZero();
    assertThat(app.status().components()).isZero();
  }

  @Test
  void interruptedRunsLeaveUnsettledStatesVisible() {
    Rows rows = new Rows();
    String[] value = {"1"};
    App app = app(ctx -> {
      TargetStateProvider<String> p = registerRootTargetStatesProvider(ctx, "rows", rows.handler);
      declareTargetState(ctx, p.targetState("a", value[0]));
    });
    app.update();
    value[0] = "2";
    rows.failWhen = r -> true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(app.status().unsettled())
        .containsExactly(new StatusReport.UnsettledState("rows", "/@rows/\"a\"", 2, false));
  }

  /** Each product's content; its memoized component declares a row of the table and a document. */
  final Map<String, String> products = new TreeMap<>(Map.of("p0", "v1", "p1", "v1", "p2", "v1"));
  final Rows rows = new Rows();
  final Tables tables = new Tables(rows);
  final Rows documents = new Rows();
  volatile String generation = "g1";
  /** Whether the documents' handler throws (a document with a field its index lacks). */
  volatile boolean documentsThrow;

  /** The documents' handler: it throws while {@link #documentsThrow} is set. */
  final TargetHandler<String, String, Rows.RowAction> document = (key, desired, prev, mbm) -> {
    if (documentsThrow && desired != null) {
      throw new IllegalStateException("document " + key + " has a field its index lacks");
    }
    return documents.handler.reconcile(key, desired, prev, mbm);
  };

  /**
   * The app of the review's finding: a table whose handler, as the PostgreSQL table's, makes its
   * rows LOSSY when the table may be missing (so on a full reprocess), and one memoized
   * component per product declaring a row of it and a document of another provider.
   */
  App productsApp() {
    TargetHandler<Tables.TableSpec, Tables.TableSpec, Tables.TableAction> table =
        (key, desired, prev, mayBeMissing) -> {
          TargetReconcileOutput<Tables.TableAction, Tables.TableSpec> out =
              tables.handler.reconcile(key, desired, prev, mayBeMissing);
          return desired == null || prev.isEmpty() || !mayBeMissing ? out
              : new TargetReconcileOutput<>(out.action(), out.sink(), out.trackingRecord(),
                  TargetChildInvalidation.LOSSY);
        };
    return app(ctx -> {
      TargetStateProvider<Tables.TableSpec> t =
          registerRootTargetStatesProvider(ctx, "tables", table);
      TargetStateProvider<String> productRows =
          mountTarget(ctx, t.targetState("products", new Tables.TableSpec(generation)));
      TargetStateProvider<String> docs = registerRootTargetStatesProvider(ctx, "docs", document);
      products.forEach((name, content) -> ctx.mountMemo(name, content, c -> {
        declareTargetState(c, productRows.targetState(name, content));
        declareTargetState(c, docs.targetState(name, content));
      }));
    });
  }

  /**
   * A full reprocess in which every product's component fails (its document's reconcile throws)
   * still refreshes the table, which makes its rows LOSSY: the rows, not confirmed since, may be
   * missing, and the next update writes them again. The status says so, as the preview does
   * (it said "all settled", while the preview planned the rows' updates).
   */
  @Test
  void rowsLeftBehindTheirTablesInvalidationByAFailedFullReprocessAreListedAsMayBeMissing() {
    App app = productsApp();
    app.update();
    assertThat(rows.takeLog()).containsExactly("create p0=v1", "create p1=v1", "create p2=v1");
    assertThat(documents.takeLog())
        .containsExactly("create p0=v1", "create p1=v1", "create p2=v1");
    tables.takeLog();

    documentsThrow = true;
    assertThatThrownBy(() -> app.update(UpdateOptions.fullReprocess()))
        .isInstanceOfSatisfying(UpdateFailedException.class, e -> assertThat(
            e.failures().stream().map(ComponentFailure::component).sorted().toList())
            .containsExactly("/\"p0\"", "/\"p1\"", "/\"p2\""));
    assertThat(tables.takeLog()).containsExactly("ensure products");
    assertThat(rows.takeLog()).isEmpty();
    assertThat(documents.takeLog()).isEmpty();
    documentsThrow = false;

    assertThat(app.status().toTable()).isEqualTo(String.format(
        "provider          states%n"
            + "docs                   3%n"
            + "tables                 1%n"
            + "tables/products        3%n"
            + "7 target states, 4 components, 3 unsettled (left by an interrupted or failed run)%n"
            + "  unsettled /@tables/\"products\"/\"p0\": 1 possible record, may be missing (its"
            + " container was invalidated since it was written)%n"
            + "  unsettled /@tables/\"products\"/\"p1\": 1 possible record, may be missing (its"
            + " container was invalidated since it was written)%n"
            + "  unsettled /@tables/\"products\"/\"p2\": 1 possible record, may be missing (its"
            + " container was invalidated since it was written)%n"));
    assertThat(app.status().unsettled()).containsExactly(
        new StatusReport.UnsettledState(
            "tables/products", "/@tables/\"products\"/\"p0\"", 1, true, true),
        new StatusReport.UnsettledState(
            "tables/products", "/@tables/\"products\"/\"p1\"", 1, true, true),
        new StatusReport.UnsettledState(
            "tables/products", "/@tables/\"products\"/\"p2\"", 1, true, true));
    assertThat(app.preview().changes().stream().map(Object::toString).sorted().toList())
        .containsExactly(
            "tables/products update \"p0\" RowAction[key=p0, value=v1]",
            "tables/products update \"p1\" RowAction[key=p1, value=v1]",
            "tables/products update \"p2\" RowAction[key=p2, value=v1]");

    app.update();
    assertThat(rows.takeLog()).containsExactly("update p0=v1", "update p1=v1", "update p2=v1");
    assertThat(documents.takeLog()).isEmpty();
    assertThat(app.status().unsettled()).isEmpty();
    assertThat(app.preview().hasChanges()).isFalse();
  }

  /**
   * A DESTRUCTIVE change of the table whose rows' components fail: the rows are listed, their
   * records meaningless since; the next update creates them again.
   */
  @Test
  void rowsLeftBehindTheirTablesDestructiveChangeAreListedAsMayBeMissing() {
    App app = productsApp();
    app.update();
    rows.takeLog();
    documents.takeLog();
    tables.takeLog();

    tables.invalidation = TargetChildInvalidation.DESTRUCTIVE;
    generation = "g2";
    documentsThrow = true;
    products.put("p1", "v2"); // p1 alone is run: the others' memos go with the table's change
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(tables.takeLog()).containsExactly("ensure products");
    assertThat(rows.takeLog()).isEmpty();
    documentsThrow = false;

    assertThat(app.status().unsettled()).containsExactly(
        new StatusReport.UnsettledState(
            "tables/products", "/@tables/\"products\"/\"p0\"", 1, true, true),
        new StatusReport.UnsettledState(
            "tables/products", "/@tables/\"products\"/\"p1\"", 1, true, true),
        new StatusReport.UnsettledState(
            "tables/products", "/@tables/\"products\"/\"p2\"", 1, true, true));
    assertThat(app.preview().changes().stream().map(Object::toString).sorted().toList())
        .containsExactly(
            "docs update \"p1\" RowAction[key=p1, value=v2]",
            "tables/products create \"p0\" RowAction[key=p0, value=v1]",
            "tables/products create \"p1\" RowAction[key=p1, value=v2]",
            "tables/products create \"p2\" RowAction[key=p2, value=v1]");
    app.update();
    assertThat(rows.takeLog()).containsExactly("create p0=v1", "create p1=v2", "create p2=v1");
    assertThat(documents.takeLog()).containsExactly("update p1=v2");
    assertThat(app.status().unsettled()).isEmpty();
  }

  /**
   * A LOSSY change of a table whose partition and rows are declared by one component that fails:
   * the partition is behind the table, and its rows behind with it (the next update reconciles
   * the partition as possibly missing, which makes its rows so too).
   */
  @Test
  void statesBelowAContainerLeftBehindItsOwnContainerAreListedToo() {
    Rows partitionRows = new Rows();
    Tables partitions = new Tables(partitionRows);
    Tables table = new Tables(partitionRows, () -> ChildTargetDef.of(partitions.handler));
    table.invalidation = TargetChildInvalidation.LOSSY;
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", table.handler);
      TargetStateProvider<Tables.TableSpec> partitionsOfT =
          mountTarget(ctx, p.targetState("t", new Tables.TableSpec(generation)));
      TargetStateProvider<String> docs =
          registerRootTargetStatesProvider(ctx, "docs", document);
      ctx.mount("part", c -> {
        TargetStateProvider<String> rowsOfP1 = declareTargetStateWithChild(
            c, partitionsOfT.targetState("p1", new Tables.TableSpec("p")));
        declareTargetState(c, rowsOfP1.targetState("x", "1"));
        declareTargetState(c, docs.targetState("d", generation));
      });
    });
    app.update();
    assertThat(partitionRows.takeLog()).containsExactly("create x=1");

    generation = "g2";
    documentsThrow = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(table.takeLog()).containsExactly("ensure t", "ensure t");
    assertThat(partitions.takeLog()).containsExactly("ensure p1");
    assertThat(partitionRows.takeLog()).isEmpty();
    documentsThrow = false;

    assertThat(app.status().unsettled()).containsExactly(
        new StatusReport.UnsettledState("tables/t", "/@tables/\"t\"/\"p1\"", 1, true, true),
        new StatusReport.UnsettledState(
            "tables/t/p1", "/@tables/\"t\"/\"p1\"/\"x\"", 1, true, true));
    assertThat(app.preview().changes().stream().map(Object::toString).sorted().toList())
        .containsExactly(
            "docs update \"d\" RowAction[key=d, value=g2]",
            "tables/t update \"p1\" TableAction[name=p1, drop=false]",
            "tables/t/p1 update \"x\" RowAction[key=x, value=1]");
    app.update();
    assertThat(partitionRows.takeLog()).containsExactly("update x=1");
    assertThat(app.status().unsettled()).isEmpty();
  }

  /**
   * The states of an attachment of a container's children (an index of the table's rows) are
   * judged against that container, as the rows are: a LOSSY change of the table whose component
   * declaring a row and its index entry fails leaves both behind it.
   */
  @Test
  void anAttachmentOfAContainersChildrenIsJudgedAgainstThatContainer() {
    Rows tableRows = new Rows();
    Rows indexEntries = new Rows();
    TargetHandler<String, String, Rows.RowAction> rowsWithIndex =
        new TableDocs.RowsWithAttachments(tableRows, Map.of("index", indexEntries));
    Tables table = new Tables(tableRows, () -> ChildTargetDef.of(rowsWithIndex));
    table.invalidation = TargetChildInvalidation.LOSSY;
    App app = app(ctx -> {
      TargetStateProvider<Tables.TableSpec> p =
          registerRootTargetStatesProvider(ctx, "tables", table.handler);
      TargetStateProvider<String> rowsOfT =
          mountTarget(ctx, p.targetState("t", new Tables.TableSpec(generation)));
      TargetStateProvider<String> docs = registerRootTargetStatesProvider(ctx, "docs", document);
      ctx.mount("r", c -> {
        declareTargetState(c, rowsOfT.targetState("x", "1"));
        declareTargetState(c, rowsOfT.<String>attachment(c, "index").targetState("i", "1"));
        declareTargetState(c, docs.targetState("d", generation));
      });
    });
    app.update();
    assertThat(tableRows.takeLog()).containsExactly("create x=1");
    assertThat(indexEntries.takeLog()).containsExactly("create i=1");
    assertThat(app.status().unsettled()).isEmpty();

    generation = "g2";
    documentsThrow = true;
    assertThatThrownBy(app::update).isInstanceOf(UpdateFailedException.class);
    assertThat(table.takeLog()).containsExactly("ensure t", "ensure t");
    documentsThrow = false;

    assertThat(app.status().unsettled()).containsExactly(
        new StatusReport.UnsettledState("tables/t", "/@tables/\"t\"/\"x\"", 1, true, true),
        new StatusReport.UnsettledState(
            "tables/t@index", "/@tables/\"t\"/@index/\"i\"", 1, true, true));
    app.update();
    assertThat(tableRows.takeLog()).containsExactly("update x=1");
    assertThat(indexEntries.takeLog()).containsExactly("update i=1");
    assertThat(app.status().unsettled()).isEmpty();
  }
}
