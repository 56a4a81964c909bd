package io.cocoindex.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.cocoindex.StableKey;
import io.cocoindex.runtime.plan.TargetPath;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Reads {@code owner_range} as stored, for tests to state it exactly. */
final class OwnerRangeRows {
  private OwnerRangeRows() {}

  /**
   * The ranges of the store in {@code dir} in path order, each as {@code "first..last owner"} by
   * the last keys of the paths (strings). Checks that each {@code hi} is its last path followed by
   * a zero byte, which is how a range ends right after its last path.
   */
  static List<String> of(Path dir) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("state.db"));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT lo, hi, owner FROM owner_range ORDER BY app, lo")) {
      while (rs.next()) {
        byte[] hi = rs.getBytes(2);
        assertThat(hi[hi.length - 1]).as("a range ends right after a path").isZero();
        out.add(lastKey(rs.getBytes(1)) + ".." + lastKey(Arrays.copyOf(hi, hi.length - 1)) + " "
            + lastKey(rs.getBytes(3)));
      }
    }
    return out;
  }

  static String lastKey(byte[] path) {
    List<StableKey> keys = TargetPath.decode(path).keys();
    return String.valueOf(((StableKey.Str) keys.get(keys.size() - 1)).value());
  }
}
