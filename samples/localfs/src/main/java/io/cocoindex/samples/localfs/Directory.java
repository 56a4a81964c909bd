package io.cocoindex.samples.localfs;

import io.cocoindex.Ctx;
import java.nio.charset.StandardCharsets;

/**
 * A managed directory: declare its files and subdirectories. Obtained from {@link LocalFs}. A
 * facade over the generated {@link SubdirTarget} that takes names, checked, where the generated
 * API takes {@link Entry} values.
 */
public final class Directory {
  private final SubdirTarget entries;

  Directory(SubdirTarget entries) {
    this.entries = entries;
  }

  /**
   * Declares the file {@code name} with {@code content}.
   *
   * @throws IllegalArgumentException naming the file when the name is empty, {@code .}, {@code
   *     ..}, contains a separator or NUL, is longer than 255 bytes in UTF-8, is not valid
   *     Unicode, or is reserved for temporary files ({@code .<name>.cocoindex-tmp})
   */
  public void declareFile(Ctx ctx, String name, byte[] content) {
    Names.checkEntryName(name);
    entries.declareEntry(ctx, Entry.file(name, content));
  }

  /** Declares the file {@code name} with {@code text} in UTF-8. */
  public void declareFile(Ctx ctx, String name, String text) {
    declareFile(ctx, name, text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Declares the subdirectory {@code name} in the calling component; declare its entries from
   * the same component.
   */
  public Directory declareDir(Ctx ctx, String name) {
    Names.checkEntryName(name);
    return new Directory(entries.declareSubdir(ctx, Entry.dir(name)));
  }

  /** Creates the subdirectory {@code name} now; its entries may be declared from any component. */
  public Directory mountDir(Ctx ctx, String name) {
    Names.checkEntryName(name);
    return new Directory(entries.mountSubdir(ctx, Entry.dir(name)));
  }
}
