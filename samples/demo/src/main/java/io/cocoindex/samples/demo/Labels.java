package io.cocoindex.samples.demo;

/** Readable names of the demo's providers, for tables and plans. */
final class Labels {
  private Labels() {}

  static String of(String provider) {
    if (provider.equals("cocoindex/sqlite/table")) {
      return "sqlite tables";
    }
    if (provider.startsWith("cocoindex/sqlite/table/")) {
      int at = provider.lastIndexOf('@');
      return at >= 0 ? "sqlite " + provider.substring(at + 1).replace('_', ' ') + "es"
          : "sqlite rows (chunks)";
    }
    if (provider.equals("cocoindex/localfs")) {
      return "output folders";
    }
    if (provider.startsWith("cocoindex/localfs/")) {
      return "summary files";
    }
    return provider;
  }
}
