package io.cocoindex.codec;

/**
 * Stored bytes do not fit the type that reads them; the message names the type and the field.
 */
public final class CodecFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CodecFormatException(String message) {
    super(message);
  }

  public CodecFormatException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A stored field the record has no component for: the component was removed or renamed since
   * the value was stored.
   */
  public static CodecFormatException unknownField(String recordType, String field) {
    return new CodecFormatException(
        "stored "
            + recordType
            + " has field '"
            + field
            + "' that the record no longer has (removed or renamed?): keep a component of that"
            + " name, or drop the app's state");
  }
}
