package io.cocoindex.samples.demo;

/** Readable names of the demo's providers, for tables and plans. */
final class Labels {
  private Labels() {}

  static String of(String provider) {
    for (String[] db : new String[][] {
        {"cocoindex/sqlite/table", "sqlite"}, {"cocoindex.io/postgres/table", "postgres"}}) {
      if (provider.equals(db[0])) {
        return db[1] + " tables";
      }
      if (provider.startsWith(db[0] + "/")) {
        int at = provider.lastIndexOf('@');
        return at >= 0 ? db[1] + " " + provider.substring(at + 1).replace('_', ' ') + "es"
            : db[1] + " rows (chunks)";
      }
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
