package io.cocoindex.samples.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cocoindex.StableKey;
import io.cocoindex.runtime.App;
import io.cocoindex.runtime.ComponentFailure;
import io.cocoindex.runtime.DeletionLimitExceededException;
import io.cocoindex.runtime.PlannedAction;
import io.cocoindex.runtime.Preview;
import io.cocoindex.runtime.UpdateFailedException;
import io.cocoindex.runtime.UpdateOptions;
import io.cocoindex.runtime.UpdateStats;
import io.cocoindex.runtime.inspect.StatusReport;
import io.cocoindex.samples.sqlite.SqliteDatabase;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The demo's command line: {@code update}, {@code preview}, {@code search}, {@code status},
 * {@code drop}, {@code help}. Results go to stdout, errors to stderr.
 */
@Command(
    name = "cocoindex-demo",
    mixinStandardHelpOptions = true,
    version = "cocoindex-demo 0.1.0",
    description = "An incremental document indexer: text and Markdown files -> SQLite chunks"
        + " with full-text search + one JSON summary per file.",
    subcommands = {
      DemoCli.Update.class, DemoCli.PreviewCommand.class, DemoCli.Search.class,
      DemoCli.Status.class, DemoCli.Drop.class, CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      " 0:done (preview --detailed-exitcode: nothing to do)",
      " 1:failed, or some files could not be indexed (said on stderr)",
      " 2:preview --detailed-exitcode: changes pending",
      "64:the command line is wrong (an unknown option, a missing argument, a value no run"
          + " can use)"
    })
public final class DemoCli {
  static final String DEFAULT_SOURCE = "samples/demo/corpus";

  /** How the URLs of {@code --state} and {@code --target} start. */
  static final String POSTGRES_URL = "jdbc:postgresql:";

  /**
   * The exit code of a wrong command line: sysexits' EX_USAGE, not picocli's default 2, which a
   * script reads as "changes pending" from {@code preview --detailed-exitcode}.
   */
  static final int USAGE_ERROR = 64;

  @Option(names = "--home", defaultValue = ".cocoindex-demo",
      description = "Workspace folder: state, SQLite index, summaries (default: ${DEFAULT-VALUE}).")
  Path home;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  String state;

  String target;

  @Option(names = "--state", description = "State store: a folder, or a PostgreSQL JDBC URL"
      + " shared by several workers (default: <home>/state).")
  void setState(String state) {
    if ((state.startsWith("jdbc:") || state.contains("://"))
        && !state.startsWith(POSTGRES_URL)) {
      throw notPostgres("--state", state);
    }
    this.state = state;
  }

  @Option(names = "--target", description = "Write the chunk table to PostgreSQL at this JDBC"
      + " URL (jdbc:postgresql://host/db?user=...) instead of the SQLite index.")
  void setTarget(String target) {
    if (!target.startsWith(POSTGRES_URL)) {
      throw notPostgres("--target", target);
    }
    this.target = target;
  }

  /**
   * A URL the PostgreSQL driver would refuse with a bare "URL invalid", or a folder name that
   * looks like a URL: a wrong command line (64), before anything is created.
   */
  private CommandLine.ParameterException notPostgres(String option, String value) {
    return new CommandLine.ParameterException(spec.commandLine(), option + " " + value
        + " is not a PostgreSQL JDBC URL: give " + POSTGRES_URL + "//host/db?user=..."
        + (option.equals("--state") ? ", or a folder" : ""));
  }

  @Option(names = "--app", defaultValue = Indexer.DEFAULT_APP,
      description = "The app's name (default: ${DEFAULT-VALUE}): it keys the tracking in the"
          + " state store and is recorded on the chunk table as its maker. Workspaces sharing a"
          + " --state or --target database each need a name of their own.")
  void setApp(String app) {
    if (app.isBlank()) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--app must name the app, not be blank");
    }
    this.app = app;
  }

  String app;

  PrintStream out = System.out;
  PrintStream err = System.err;
  boolean terminal = System.console() != null;

  public static void main(String[] args) {
    System.exit(run(System.out, System.err, args));
  }

  /** Runs the CLI and returns its exit code (tests call this). */
  static int run(PrintStream out, PrintStream err, String... args) {
    DemoCli cli = new DemoCli();
    cli.out = out;
    cli.err = err;
    CommandLine cmd = new CommandLine(cli);
    cmd.setOut(new java.io.PrintWriter(out, true));
    cmd.setErr(new java.io.PrintWriter(err, true));
    cmd.setExecutionExceptionHandler((ex, line, parse) -> {
      err.println("error: " + ex.getMessage());
      return 1;
    });
    cmd.getCommandSpec().exitCodeOnInvalidInput(USAGE_ERROR);
    cmd.getSubcommands().values()
        .forEach(sub -> sub.getCommandSpec().exitCodeOnInvalidInput(USAGE_ERROR));
    return cmd.execute(args);
  }

  Workspace workspace() {
    return new Workspace(home);
  }

  /**
   * Whether the state store certainly tracks nothing: the embedded store's folder does not exist
   * or is empty. A read-only command then says so without opening it, which would create it.
   */
  boolean stateIsAbsent() throws java.io.IOException {
    if (state != null && state.startsWith("jdbc:")) {
      return false;
    }
    Path folder = state != null ? Path.of(state) : workspace().state();
    if (!Files.isDirectory(folder)) {
      return true;
    }
    try (java.util.stream.Stream<Path> entries = Files.list(folder)) {
      return entries.findAny().isEmpty();
    }
  }

  /** Where this command line writes chunks: {@code postgres} with {@code --target}. */
  String chunkTargetKind() {
    return target != null ? "postgres" : "sqlite";
  }

  /**
   * Why this command line may not update, preview or drop the workspace, or null: its chunks are
   * in the other target (an earlier update with, or without, {@code --target}), whose connector
   * this one would not register, so its chunks would stay behind, tracked, out of every drop's
   * reach. The workspace's note of its target is only a hint, read first because it costs
   * nothing; what {@code app} tracks decides (a state deleted by hand tracks no chunk anywhere).
   */
  String otherChunkTarget(App app) throws java.io.IOException {
    Path marker = workspace().chunkTarget();
    if (!Files.exists(marker)) {
      return null;
    }
    String kind = Files.readString(marker).strip();
    if (kind.equals(chunkTargetKind())) {
      return null;
    }
    boolean inPostgres = kind.equals("postgres");
    if (!app.status().providers().containsKey(
        inPostgres ? "cocoindex.io/postgres/table" : "cocoindex/sqlite/table")) {
      return null;
    }
    return inPostgres
        ? "the chunks of " + home + " are in PostgreSQL (an earlier update had --target): give"
            + " that --target again, or run drop with it before indexing into the SQLite index;"
            + " or give this index a --home of its own"
        : "the chunks of " + home + " are in its SQLite index (an earlier update had no"
            + " --target): leave out --target, or run drop without it before indexing into"
            + " PostgreSQL; or give this index a --home of its own";
  }

  /** Records where this command line writes the workspace's chunks, before it writes any. */
  void rememberChunkTarget() throws java.io.IOException {
    Files.writeString(workspace().chunkTarget(), chunkTargetKind() + "\n");
  }

  /** Closes the database chunks are written to (nothing, for a server's pool). */
  @FunctionalInterface
  interface DatabaseCloser {
    void close() throws java.sql.SQLException;
  }

  /** The app with the database it writes chunks to, closed together. */
  record Session(Indexer indexer, App app, DatabaseCloser database) implements AutoCloseable {
    @Override
    public void close() throws java.sql.SQLException {
      try {
        app.close();
      } finally {
        try {
          indexer.closeStore();
        } finally {
          database.close();
        }
      }
    }
  }

  /** Opens the app on the workspace, the chosen state store and the chosen chunk target. */
  Session open(Path source) {
    return open(new Indexer(workspace(), source, stateLocation(), app));
  }

  /** Opens the app for a drop: main reads no source file ({@link Indexer#registrationsOnly}). */
  Session openForDrop() {
    return open(new Indexer(workspace(), Path.of(DEFAULT_SOURCE), stateLocation(), app)
        .registrationsOnly());
  }

  private String stateLocation() {
    return state != null ? state : workspace().state().toString();
  }

  private Session open(Indexer indexer) {
    Workspace ws = workspace();
    if (target != null) {
      org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
      ds.setURL(target);
      try {
        return new Session(indexer, indexer.app(ds), () -> {});
      } catch (RuntimeException e) {
        indexer.closeStore();
        throw e;
      }
    }
    SqliteDatabase db = SqliteDatabase.open(ws.index());
    try {
      return new Session(indexer, indexer.app(db), db::close);
    } catch (RuntimeException e) { // the store could not be opened: close what was
      indexer.closeStore();
      try {
        db.close();
      } catch (java.sql.SQLException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /**
   * Why {@code source} cannot be indexed: the default corpus is found from the repository's root
   * only, which a newcomer running the jar from elsewhere is not told by the bare path.
   */
  static String noSourceFolder(Path source) {
    return "source folder " + source + " does not exist or is not a directory"
        + (source.equals(Path.of(DEFAULT_SOURCE)) ? " (the default, the shipped corpus, is"
            + " relative to the repository's root: run from there, or give --source)" : "");
  }

  /** Options of the commands that read the source folder. */
  static class SourceOption {
    @Option(names = "--source", defaultValue = DEFAULT_SOURCE,
        description = "Folder of .txt/.md files to index (default: ${DEFAULT-VALUE}).")
    Path source;
  }

  @Command(name = "update", mixinStandardHelpOptions = true,
      description = "Index the source folder incrementally.")
  static final class Update implements Callable<Integer> {
    @CommandLine.ParentCommand DemoCli cli;
    @CommandLine.Mixin SourceOption options = new SourceOption();
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    Long maxDeletions;

    @Option(names = "--max-deletions", paramLabel = "N",
        description = "Delete nothing, and fail, when more than N chunks, summaries and other"
            + " outputs would be deleted (a source folder that came up empty).")
    void setMaxDeletions(long n) {
      if (n < 0) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--max-deletions " + n + " cannot be negative: give 0 to delete nothing");
      }
      maxDeletions = n;
    }

    @Option(names = "--full",
        description = "Index every file again, ignoring what is unchanged, and rewrite every"
            + " output (repairs outputs changed or deleted by hand).")
    boolean full;

    UpdateOptions updateOptions() {
      UpdateOptions o = full ? UpdateOptions.fullReprocess() : UpdateOptions.defaults();
      return maxDeletions == null ? o : o.withDeletionLimit(maxDeletions);
    }

    @Override
    @SuppressWarnings("try") // the progress display shows while the update runs, unreferenced
    public Integer call() throws Exception {
      Path source = options.source;
      if (!Files.isDirectory(source)) {
        cli.err.println("error: " + noSourceFolder(source));
        return 1;
      }
      Files.createDirectories(cli.home);
      long start = System.nanoTime();
      try (Session session = cli.open(source)) {
        App app = session.app();
        String other = cli.otherChunkTarget(app);
        if (other != null) {
          cli.err.println("error: " + other);
          return 1;
        }
        cli.rememberChunkTarget();
        Indexer indexer = session.indexer();
        UpdateStats stats;
        List<ComponentFailure> failures = List.of();
        try (ProgressDisplay progress =
            new ProgressDisplay(app, indexer::totalFiles, cli.out, cli.terminal)) {
          try {
            stats = app.update(updateOptions());
          } catch (UpdateFailedException e) {
            stats = e.stats();
            failures = e.failures();
          }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        // A file's component failing costs that file; any other (the chunk table, main) the run.
        List<ComponentFailure> files = new ArrayList<>();
        List<ComponentFailure> others = new ArrayList<>();
        for (ComponentFailure f : failures) {
          (indexer.fileOf(f.component()) != null ? files : others).add(f);
        }
        if (others.isEmpty()) {
          int indexed = indexer.totalFiles() - files.size();
          cli.out.printf("Indexed %s: %d %s (%d unchanged, skipped%s) in %.2f s%n", source,
              indexed, indexed == 1 ? "file" : "files", stats.componentsMemoized(),
              files.isEmpty() ? "" : "; " + files.size() + " could not be, below",
              took.toNanos() / 1e9);
        } else {
          cli.out.printf("Update of %s did not complete (%.2f s); what it did:%n", source,
              took.toNanos() / 1e9);
        }
        cli.out.print(table(stats));
        if (!others.isEmpty()) {
          cli.err.println("error: the update could not complete (fix this and run update"
              + " again):");
          for (ComponentFailure f : others) {
            cli.err.println("  ! " + (f.error() instanceof DeletionLimitExceededException refused
                ? refusal(refused) : f.component() + ": " + f.message()));
          }
        }
        if (!files.isEmpty()) {
          cli.err.println(files.size() + (files.size() == 1 ? " file" : " files")
              + " could not be indexed (" + (files.size() == 1 ? "left as it was; fix it"
              : "left as they were; fix them") + " and run update again):");
          for (ComponentFailure f : files) {
            cli.err.println("  ! " + indexer.fileOf(f.component()) + ": " + f.message());
          }
        }
        return failures.isEmpty() ? 0 : 1;
      }
    }
  }

  /**
   * The refused deletions in the command line's words: the engine's message names the API
   * ({@code UpdateOptions.withDeletionLimit}), where a user of this command gives the limit as
   * {@code --max-deletions}.
   */
  static String refusal(DeletionLimitExceededException e) {
    return "the update would delete " + e.deletions() + " outputs (chunks, summaries and the"
        + " rest), more than --max-deletions " + e.limit() + ": none was deleted. If the source"
        + " folder came up short, fix it; if the deletions are meant, run preview to list them,"
        + " then update with a higher --max-deletions or without it";
  }

  static String table(UpdateStats stats) {
    Map<String, long[]> rows = new TreeMap<>();
    stats.providers().forEach((provider, s) -> {
      long[] r = rows.computeIfAbsent(Labels.of(provider), k -> new long[4]);
      r[0] += s.created();
      r[1] += s.updated();
      r[2] += s.deleted();
      r[3] += s.unchanged();
    });
    StringBuilder sb = new StringBuilder();
    String fmt = "  %-26s %8s %8s %8s %10s%n";
    sb.append(String.format(fmt, "target", "created", "updated", "deleted", "unchanged"));
    rows.forEach((label, r) -> sb.append(String.format(fmt, label, r[0], r[1], r[2], r[3])));
    return sb.toString();
  }

  @Command(name = "preview", mixinStandardHelpOptions = true,
      description = "Show what update would do; change nothing.")
  static final class PreviewCommand implements Callable<Integer> {
    @CommandLine.ParentCommand DemoCli cli;
    @CommandLine.Mixin SourceOption options = new SourceOption();

    @Option(names = "--json", description = "Print the plan as JSON.")
    boolean json;

    @Option(names = "--detailed-exitcode",
        description = "Exit 0 when nothing would change, 2 when changes are pending.")
    boolean detailedExitCode;

    @Override
    public Integer call() throws Exception {
      if (!Files.isDirectory(options.source)) {
        cli.err.println("error: " + noSourceFolder(options.source));
        return 1;
      }
      Files.createDirectories(cli.home);
      Preview preview;
      try (Session session = cli.open(options.source)) {
        String other = cli.otherChunkTarget(session.app());
        if (other != null) {
          cli.err.println("error: " + other);
          return 1;
        }
        preview = session.app().preview();
      }
      List<PlannedAction> changes = preview.changes();
      if (json) {
        List<Map<String, Object>> plan = new ArrayList<>();
        for (PlannedAction a : changes) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("target", Labels.of(a.provider()));
          m.put("provider", a.provider());
          m.put("key", keyText(a.key()));
          m.put("action", a.action().verb());
          plan.add(m);
        }
        cli.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter()
            .writeValueAsString(Map.of("changes", plan)));
      } else if (changes.isEmpty()) {
        cli.out.println("No changes: everything is up to date.");
      } else {
        Map<String, List<PlannedAction>> byTarget = new TreeMap<>();
        changes.forEach(a -> byTarget.computeIfAbsent(Labels.of(a.provider()),
            k -> new ArrayList<>()).add(a));
        byTarget.forEach((target, actions) -> {
          Map<String, Integer> verbs = new TreeMap<>();
          actions.forEach(a -> verbs.merge(a.action().verb(), 1, Integer::sum));
          List<String> counts = new ArrayList<>();
          verbs.forEach((verb, n) -> counts.add(n + " " + verb));
          cli.out.println(target + ": " + String.join(", ", counts));
          actions.stream().limit(5).forEach(a ->
              cli.out.println("    " + a.action().verb() + " " + keyText(a.key())));
          if (actions.size() > 5) {
            cli.out.println("    ... and " + (actions.size() - 5) + " more");
          }
        });
      }
      return detailedExitCode && !changes.isEmpty() ? 2 : 0;
    }
  }

  static String keyText(StableKey key) {
    if (key instanceof StableKey.Str s) {
      return s.value();
    }
    return key.toString();
  }

  @Command(name = "search", mixinStandardHelpOptions = true,
      description = "Full-text search over the indexed chunks.")
  static final class Search implements Callable<Integer> {
    @CommandLine.ParentCommand DemoCli cli;

    @Parameters(arity = "1..*", description = "Words to search for.")
    List<String> words;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    int limit;

    @Option(names = "--limit", defaultValue = "10",
        description = "Results to show (default: ${DEFAULT-VALUE}).")
    void setLimit(int limit) {
      if (limit < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--limit " + limit + " shows nothing: give 1 or more");
      }
      this.limit = limit;
    }

    @Override
    public Integer call() throws Exception {
      if (cli.target != null) {
        return searchPostgres();
      }
      Path index = cli.workspace().index();
      if (!Files.exists(index)) {
        cli.err.println(nothingIndexed());
        return 1;
      }
      StringBuilder match = new StringBuilder();
      for (String w : words) {
        for (String token : w.split("\\s+")) {
          if (!token.isBlank()) {
            match.append(match.length() == 0 ? "" : " ")
                .append('"').append(token.replace("\"", "\"\"")).append('"');
          }
        }
      }
      try (SqliteDatabase db = SqliteDatabase.open(index)) {
        if (!hasFullTextIndex(db)) { // dropped, or not created yet
          cli.err.println(nothingIndexed());
          return 1;
        }
        List<String> hits = db.read(c -> {
          List<String> out = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(
              "SELECT c.file, c.ordinal, snippet(chunks_fts, 0, '[', ']', '...', 12)"
                  + " FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid"
                  + " WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts) LIMIT ?")) {
            ps.setString(1, match.toString());
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
              int rank = 0;
              while (rs.next()) {
                out.add(String.format("%2d. %s #%d%n    %s", ++rank, rs.getString(1),
                    rs.getLong(2), rs.getString(3).replaceAll("\\s+", " ")));
              }
            }
          }
          return out;
        });
        if (hits.isEmpty()) {
          cli.out.println("No chunk matches " + String.join(" ", words) + ".");
          return 0;
        }
        hits.forEach(cli.out::println);
      }
      return 0;
    }

    /**
     * Why the SQLite index has no chunks to search: none was made, or the workspace's updates
     * wrote them to PostgreSQL (which "run update first" would send a user round in circles on).
     */
    private String nothingIndexed() throws java.io.IOException {
      Path marker = cli.workspace().chunkTarget();
      if (Files.exists(marker) && Files.readString(marker).strip().equals("postgres")) {
        return "The chunks of " + cli.home + " are in PostgreSQL (an earlier update had"
            + " --target): search with that --target.";
      }
      return "Nothing is indexed in " + cli.home + ": run update first.";
    }

    private static boolean hasFullTextIndex(SqliteDatabase db) throws java.sql.SQLException {
      return db.read(c -> {
        try (PreparedStatement ps = c.prepareStatement(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chunks_fts'");
            ResultSet rs = ps.executeQuery()) {
          return rs.next();
        }
      });
    }

    /** Ranked search over the PostgreSQL chunk table with PostgreSQL's own full-text search. */
    private Integer searchPostgres() throws Exception {
      String query = String.join(" ", words);
      List<String> hits = new ArrayList<>();
      try (java.sql.Connection c = java.sql.DriverManager.getConnection(cli.target);
          PreparedStatement ps = c.prepareStatement(
              "SELECT file, ordinal, ts_headline('english', text, q,"
                  + " 'StartSel=[,StopSel=],MaxWords=14,MinWords=6')"
                  + " FROM public.chunks, plainto_tsquery('english', ?) q"
                  + " WHERE to_tsvector('english', text) @@ q"
                  + " ORDER BY ts_rank(to_tsvector('english', text), q) DESC LIMIT ?")) {
        ps.setString(1, query);
        ps.setInt(2, limit);
        try (ResultSet rs = ps.executeQuery()) {
          int rank = 0;
          while (rs.next()) {
            hits.add(String.format("%2d. %s #%d%n    %s", ++rank, rs.getString(1), rs.getLong(2),
                rs.getString(3).replaceAll("\\s+", " ")));
          }
        }
      }
      if (hits.isEmpty()) {
        cli.out.println("No chunk matches " + query + ".");
      }
      hits.forEach(cli.out::println);
      return 0;
    }
  }

  @Command(name = "status", aliases = "show", mixinStandardHelpOptions = true,
      description = "Show what is tracked, per target.")
  static final class Status implements Callable<Integer> {
    @CommandLine.ParentCommand DemoCli cli;

    @Option(names = {"-v", "--verbose"}, description = "List the tracked keys.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
      if (cli.stateIsAbsent()) { // read-only: opening the store would create it
        cli.out.println("Nothing is tracked: run update first.");
        return 0;
      }
      StatusReport report;
      try (Session session = cli.open(Path.of(DEFAULT_SOURCE))) {
        report = session.app().status();
      }
      if (report.total() == 0) {
        cli.out.println("Nothing is tracked: run update first.");
        return 0;
      }
      cli.out.printf("%d target states tracked, %d components%n", report.total(),
          report.components());
      report.providers().forEach((provider, keys) -> {
        cli.out.printf("  %-26s %6d   (%s)%n", Labels.of(provider), keys.size(), provider);
        if (verbose) {
          keys.forEach(k -> cli.out.println("      " + keyText(k)));
        }
      });
      if (report.unsettled().isEmpty()) {
        cli.out.println("All states are settled.");
      } else {
        cli.out.println(report.unsettled().size() + " states were left unsettled by an"
            + " interrupted or failed run (the next update reconciles them):");
        report.unsettled().forEach(u -> cli.out.printf("  %s: %d possible records%s%n", u.path(),
            u.possibleRecords(), u.mayBeMissing() ? ", may be missing" : ""));
      }
      return 0;
    }
  }

  @Command(name = "drop", mixinStandardHelpOptions = true,
      description = "Remove everything the indexer created; forget its state.")
  static final class Drop implements Callable<Integer> {
    @CommandLine.ParentCommand DemoCli cli;

    /** Taken, as before, and not needed: a drop reads no source file, nor needs the folder. */
    @Option(names = "--source", hidden = true)
    Path source;

    @Override
    public Integer call() throws Exception {
      if (cli.stateIsAbsent()) {
        cli.out.println("Nothing is tracked: nothing to drop.");
        return 0;
      }
      try (Session session = cli.openForDrop()) {
        String other = cli.otherChunkTarget(session.app());
        if (other != null) {
          cli.err.println("error: " + other);
          return 1;
        }
        // What is tracked now is what the drop removes: a container's deletion takes its
        // children (rows, files, indexes) with it, so the drop's own counts are containers'.
        StatusReport before = session.app().status();
        if (before.total() == 0) { // dropped already: the store's files outlive their contents
          cli.out.println("Nothing is tracked: nothing to drop.");
          return 0;
        }
        UpdateStats stats = session.app().dropState();
        cli.out.printf("Dropped: %d target states removed (%d deleted through their handlers,"
            + " the rest with their containers).%n", before.total(), stats.total().deleted());
        Map<String, Long> removed = new TreeMap<>();
        before.providers().forEach((provider, keys) ->
            removed.merge(Labels.of(provider), (long) keys.size(), Long::sum));
        String fmt = "  %-26s %8s%n";
        cli.out.printf(fmt, "target", "removed");
        removed.forEach((label, n) -> cli.out.printf(fmt, label, n));
      }
      Files.deleteIfExists(cli.workspace().chunkTarget()); // either target may come next
      return 0;
    }
  }
}
