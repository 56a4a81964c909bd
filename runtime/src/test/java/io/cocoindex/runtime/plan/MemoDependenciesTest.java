package io.cocoindex.runtime.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cocoindex.runtime.plan.MemoDependencies.Dependency;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The memo dependencies a component record stores: read back as written, in the stored layout. */
class MemoDependenciesTest {
  /** The layout every stored record has: {@link DataOutputStream}'s, field by field. */
  private static byte[] asStreamsWrite(List<Dependency> deps) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(deps.size());
      for (Dependency d : deps) {
        out.writeUTF(d.provider());
        out.writeInt(d.container().length);
        out.write(d.container());
        out.writeLong(d.generation());
        out.writeLong(d.epoch());
        out.writeLong(d.states());
      }
    }
    return bytes.toByteArray();
  }

  @Test
  void encodesAsTheStreamsDidForEveryKindOfName() throws IOException {
    List<List<Dependency>> cases = List.of(
        List.of(),
        List.of(new Dependency("rows", new byte[0], 0, 0, 100)),
        List.of(new Dependency("tables", new byte[] {1, 2, 3}, 7, -1, Long.MAX_VALUE),
            new Dependency("tablé", new byte[] {(byte) 0xFF}, Long.MIN_VALUE, 3, 0)),
        // NUL and chars to U+07FF take two bytes, the rest of the BMP three, and a char outside
        // it is two surrogates of three bytes each (modified UTF-8).
        List.of(new Dependency("a\0b", new byte[0], 1, 2, 3),
            new Dependency("ߏ表\uD83D\uDE00", new byte[] {0}, 4, 5, 6)));
    for (List<Dependency> deps : cases) {
      byte[] encoded = MemoDependencies.encode(deps);
      assertThat(encoded).isEqualTo(asStreamsWrite(deps));
      List<Dependency> back = MemoDependencies.decode(encoded);
      assertThat(back).hasSameSizeAs(deps);
      for (int i = 0; i < deps.size(); i++) {
        Dependency d = deps.get(i);
        Dependency b = back.get(i);
        assertThat(b.provider()).isEqualTo(d.provider());
        assertThat(b.container()).isEqualTo(d.container());
        assertThat(List.of(b.generation(), b.epoch(), b.states()))
            .isEqualTo(List.of(d.generation(), d.epoch(), d.states()));
      }
    }
  }

  @Test
  void aNameTooLongToRecordIsRefusedByName() {
    String name = "é".repeat(40_000); // 80,000 bytes encoded
    assertThatThrownBy(() -> MemoDependencies.encode(
        List.of(new Dependency(name, new byte[0], 0, 0, 1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("provider name of 40000 chars is too long");
  }

  @Test
  void anAbsentContainerTheSubtreeDeclaredOnAfterAllIsLeftOut() {
    byte[] docs = {1};
    byte[] articles = {2};
    List<Dependency> merged = MemoDependencies.merge(
        List.of(new Dependency("tables/docs", docs, 3, 0, 2)),
        List.of(Dependency.absent("tables/docs", docs), Dependency.absent("tables/x", articles)));
    assertThat(merged).hasSize(2);
    assertThat(merged.get(0).isAbsent()).isFalse();
    assertThat(merged.get(0).states()).isEqualTo(2);
    assertThat(merged.get(1).isAbsent()).isTrue();
    assertThat(merged.get(1).container()).isEqualTo(articles);
  }
}
