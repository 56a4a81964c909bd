package io.cocoindex.codec;

/**
 * Stored bytes do not fit the type that reads them; the message names the type and the field.
 */
public final class CodecFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * An error with the given message.
   *
   * @param message what does not fit, naming the type and the field
   */
  public CodecFormatException(String message) {
    super(message);
  }

  /**
   * An error with the given message and the failure that revealed it.
   *
   * @param message what does not fit, naming the type and the field
   * @param cause the failure of reading the stored bytes
   */
  public CodecFormatException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A stored field the record has no component for: the component was removed or renamed since
   * the value was stored.
   *
   * @param recordType the name of the record type being read
   * @param field the stored field's name
   * @return the error to throw, telling how to recover: not by a drop with the version that
   *     cannot read the record, which reads the stored records too and would fail the same way
   */
  public static CodecFormatException unknownField(String recordType, String field) {
    return new CodecFormatException(
        "stored "
            + recordType
            + " has field '"
            + field
            + "' that the record no longer has (removed or renamed?): keep a component of that"
            + " name, or run dropState with the version that stored it before upgrading (this"
            + " version cannot: dropState reads the stored records too); see docs/CONNECTORS.md,"
            + " \"Changing a tracking record\"");
  }
}
