package io.cocoindex.runtime.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.reflect.Type;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The reflective codec factory loads Jackson's databind for the first type that needs it, not
 * when the registry is made: an app whose types all have generated codecs never pays for it
 * (about a fifth of a second of a fresh JVM).
 */
class LazyJacksonTest {
  /** Loads the test class path itself, so what it has loaded can be asked. */
  static final class Isolated extends URLClassLoader {
    Isolated(URL[] urls) {
      super(urls, ClassLoader.getPlatformClassLoader());
    }

    boolean hasLoaded(String name) {
      return findLoadedClass(name) != null;
    }
  }

  /** A record with no generated codec: only the reflective factory can make one. */
  public record Plain(String text) {}

  @Test
  void theMapperIsBuiltForTheFirstTypeWithoutAGeneratedCodec() throws Exception {
    URL[] urls = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .map(p -> {
          try {
            return Path.of(p).toUri().toURL();
          } catch (java.net.MalformedURLException e) {
            throw new IllegalStateException(e);
          }
        })
        .toArray(URL[]::new);
    try (Isolated loader = new Isolated(urls)) {
      Class<?> registryClass = loader.loadClass(CodecRegistry.class.getName());
      Object registry = registryClass.getMethod("standard").invoke(null);
      assertThat(loader.hasLoaded("com.fasterxml.jackson.databind.ObjectMapper"))
          .as("databind loaded by making the registry").isFalse();

      Class<?> plain = loader.loadClass(Plain.class.getName());
      registryClass.getMethod("codecFor", Type.class).invoke(registry, plain);
      assertThat(loader.hasLoaded("com.fasterxml.jackson.databind.ObjectMapper")).isTrue();
    }
  }
}
