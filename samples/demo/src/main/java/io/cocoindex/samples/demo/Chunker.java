package io.cocoindex.samples.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits text into chunks of at most {@link #MAX_CHARS} characters, at paragraph boundaries when
 * it can, then at line ends, then at spaces.
 */
final class Chunker {
  static final int MAX_CHARS = 1200;

  private Chunker() {}

  /** One chunk: its text and where it starts in the file. */
  record Piece(String text, int offset) {}

  static List<Piece> split(String text) {
    List<Piece> out = new ArrayList<>();
    int start = 0;
    int n = text.length();
    while (start < n) {
      while (start < n && Character.isWhitespace(text.charAt(start))) {
        start++;
      }
      if (start >= n) {
        break;
      }
      int end = Math.min(n, start + MAX_CHARS);
      if (end < n) {
        int cut = text.lastIndexOf("\n\n", end);
        if (cut <= start + MAX_CHARS / 3) {
          cut = text.lastIndexOf('\n', end);
        }
        if (cut <= start + MAX_CHARS / 3) {
          cut = text.lastIndexOf(' ', end);
        }
        if (cut > start + MAX_CHARS / 3) {
          end = cut;
        }
      }
      String piece = text.substring(start, end).strip();
      if (!piece.isEmpty()) {
        out.add(new Piece(piece, start));
      }
      start = end;
    }
    return out;
  }
}
