package io.cocoindex.runtime.state;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-app update locks as OS file locks on {@code <dir>/<app>.lock}. The operating system drops
 * the lock when its process dies (even by {@code kill -9}), so a dead holder never blocks a
 * later run; the file's text names the holder (pid, host, since when) for the error message.
 */
final class FileUpdateLocks implements AutoCloseable {
  /** Locks held in this JVM, by lock file: a second App in the same JVM gets a clear error too. */
  private static final Map<Path, String> heldInThisJvm = new ConcurrentHashMap<>();

  private final Path dir;
  private final Map<Path, FileChannel> open = new HashMap<>();

  FileUpdateLocks(Path dir) {
    this.dir = dir;
  }

  AutoCloseable acquire(String app) {
    Path file = dir.resolve(fileName(app)).toAbsolutePath();
    String me = describeSelf();
    String previous = heldInThisJvm.putIfAbsent(file, me);
    if (previous != null) {
      throw locked(app, previous + ", in this JVM");
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        String holder = Files.readString(file, StandardCharsets.UTF_8).trim();
        channel.close();
        heldInThisJvm.remove(file);
        throw locked(app, holder.isEmpty() ? "an unknown process" : holder);
      }
      channel.truncate(0);
      // Not forced to disk: the holder's name only explains a refusal, and the OS lock itself
      // is what excludes (a sync here cost a few milliseconds of every run).
      channel.write(ByteBuffer.wrap(me.getBytes(StandardCharsets.UTF_8)), 0);
      FileChannel held = channel;
      synchronized (open) {
        open.put(file, held);
      }
      return () -> release(file, held, lock);
    } catch (IOException | OverlappingFileLockException e) {
      heldInThisJvm.remove(file);
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException ignored) {
          // the original failure is what matters
        }
      }
      throw new StateStoreException("cannot take the update lock " + file + ": " + e, e);
    }
  }

  private void release(Path file, FileChannel channel, FileLock lock) throws IOException {
    synchronized (open) {
      if (open.remove(file) == null) {
        return;
      }
    }
    // Closing the channel releases its lock: done whatever the truncate does, or the lock would
    // stay with a leaked channel and every later update of the app in this JVM be refused.
    try {
      channel.truncate(0);
    } finally {
      try {
        channel.close();
      } finally {
        heldInThisJvm.remove(file);
      }
    }
  }

  private StoreLockedException locked(String app, String holder) {
    return new StoreLockedException(
        "the state of app '"
            + app
            + "' in "
            + dir
            + " is being updated by "
            + holder
            + "; wait for it to finish (a lock left by a dead process is released by the OS)");
  }

  /**
   * This process as a lock file names it, but the time: "pid N on host". Looked up once: a host
   * whose name does not resolve takes seconds, which every update would pay.
   */
  private static final class Self {
    static final String PROCESS = "pid " + ProcessHandle.current().pid() + " on " + host();

    private static String host() {
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        return "unknown-host";
      }
    }
  }

  private static String describeSelf() {
    return Self.PROCESS + " since " + Instant.now();
  }

  /** How much of an app's name its lock file shows (a name may be longer than a file's). */
  private static final int NAME_SHOWN = 64;

  /**
   * The lock file of {@code app}: at most {@value #NAME_SHOWN} characters of its name, for a
   * reader (others replaced by {@code _}), then 16 hex digits of the SHA-256 of the whole name,
   * which tells apart names that read the same ({@code x!@} and {@code x"!}); a name's length
   * never makes the file's too long to create.
   */
  static String fileName(String app) {
    StringBuilder sb = new StringBuilder();
    for (char ch : app.substring(0, Math.min(app.length(), NAME_SHOWN)).toCharArray()) {
      sb.append(ch < 128 && (Character.isLetterOrDigit(ch) || ch == '-' || ch == '_') ? ch : '_');
    }
    byte[] digest;
    try {
      digest = java.security.MessageDigest.getInstance("SHA-256")
          .digest(app.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    return sb + "-" + java.util.HexFormat.of().formatHex(digest, 0, 8) + ".lock";
  }

  @Override
  public void close() {
    synchronized (open) {
      for (Map.Entry<Path, FileChannel> e : open.entrySet()) {
        heldInThisJvm.remove(e.getKey());
        try {
          e.getValue().close();
        } catch (IOException ignored) {
          // closing releases the lock; nothing else to do
        }
      }
      open.clear();
    }
  }
}
