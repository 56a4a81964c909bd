package io.cocoindex.samples.localfs;

/** Validation of entry names: one path segment, nothing that escapes its directory. */
final class Names {
  private Names() {}

  /**
   * @throws IllegalArgumentException naming the entry when it is not a plain file name
   */
  static String checkEntryName(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("an entry name must not be empty");
    }
    if (name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException(
          "entry name '" + name + "' is not allowed: it would escape or alias its directory");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/' || c == '\\' || c == 0) {
        throw new IllegalArgumentException(
            "entry name '" + name.replace("\0", "\\0") + "' contains a path separator or NUL:"
                + " declare a subdirectory with declareDir instead");
      }
    }
    if (name.length() > 255) {
      throw new IllegalArgumentException("entry name '" + name + "' is longer than 255 characters");
    }
    return name;
  }
}
