package io.cocoindex.runtime.codec;

/** A value could not be encoded or decoded; the message names the type (and field). */
public final class CodecException extends RuntimeException {
  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }

  public CodecException(String message) {
    super(message);
  }
}
