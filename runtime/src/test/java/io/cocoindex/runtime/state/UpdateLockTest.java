package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The update lock: a clear error naming the holder, and no hang after the holder died. */
@SuppressWarnings("try") // the locks are held for their blocks, unreferenced in them
class UpdateLockTest {
  @TempDir Path dir;

  @Test
  void secondUpdaterInTheSameJvmGetsAnErrorNamingTheHolder() throws Exception {
    try (SqliteStateStore a = SqliteStateStore.open(dir);
        SqliteStateStore b = SqliteStateStore.open(dir);
        AutoCloseable held = a.lockForUpdate("app")) {
      assertThatThrownBy(() -> b.lockForUpdate("app"))
          .isInstanceOf(StoreLockedException.class)
          .hasMessageContaining("app 'app'")
          .hasMessageContaining("pid " + ProcessHandle.current().pid())
          .hasMessageContaining("since");
      try (AutoCloseable other = b.lockForUpdate("other-app")) {
        assertThat(other).isNotNull();
      }
    }
    try (SqliteStateStore c = SqliteStateStore.open(dir);
        AutoCloseable again = c.lockForUpdate("app")) {
      assertThat(again).isNotNull();
    }
  }

  /** Names that read the same in a file name, and share a String.hashCode, are two locks. */
  @Test
  void appsWhoseNamesReadTheSameInAFileNameHoldLocksOfTheirOwn() throws Exception {
    assertThat("x!@".hashCode()).isEqualTo("x\"!".hashCode());
    try (SqliteStateStore store = SqliteStateStore.open(dir);
        AutoCloseable first = store.lockForUpdate("x!@");
        AutoCloseable second = store.lockForUpdate("x\"!")) {
      assertThat(FileUpdateLocks.fileName("x!@")).isNotEqualTo(FileUpdateLocks.fileName("x\"!"))
          .startsWith("x__-").endsWith(".lock");
    }
  }

  /** A name longer than a file name can be still gets a lock, its file name cut to fit. */
  @Test
  void anAppNameOfAnyLengthGetsALock() throws Exception {
    String name = "app-".repeat(100);
    try (SqliteStateStore store = SqliteStateStore.open(dir);
        AutoCloseable held = store.lockForUpdate(name)) {
      assertThat(FileUpdateLocks.fileName(name)).hasSize(64 + 1 + 16 + ".lock".length());
      assertThatThrownBy(() -> store.lockForUpdate(name))
          .isInstanceOf(StoreLockedException.class);
    }
  }

  @Test
  void lockOfAnotherProcessIsReportedAndTakenOverOnceThatProcessIsKilled() throws Exception {
    Process holder = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"),
            LockHolder.class.getName(), dir.toString())
        .redirectErrorStream(true)
        .start();
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      String line;
      do {
        line = out.readLine();
      } while (line != null && !line.equals("locked"));
      assertThat(line).as("the holder process reported its lock").isEqualTo("locked");

      try (SqliteStateStore store = SqliteStateStore.open(dir)) {
        assertThatThrownBy(() -> store.lockForUpdate("app"))
            .isInstanceOf(StoreLockedException.class)
            .hasMessageContaining("pid " + holder.pid());

        holder.destroyForcibly(); // SIGKILL: no chance to release anything
        assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        try (AutoCloseable taken = store.lockForUpdate("app")) {
          assertThat(taken).isNotNull();
        }
      }
    } finally {
      holder.destroyForcibly();
    }
  }

  /** Takes the lock in a separate JVM and holds it until killed. */
  public static final class LockHolder {
    public static void main(String[] args) throws Exception {
      SqliteStateStore store = SqliteStateStore.open(Path.of(args[0]));
      store.lockForUpdate("app");
      System.out.println("locked");
      System.out.flush();
      Thread.sleep(TimeUnit.MINUTES.toMillis(5));
    }
  }
}
