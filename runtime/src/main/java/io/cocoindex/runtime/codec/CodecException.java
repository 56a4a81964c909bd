package io.cocoindex.runtime.codec;

/** A value could not be encoded or decoded; the message names the type (and field). */
public final class CodecException extends RuntimeException {
  /**
   * An encoding or decoding failure, with what caused it.
   *
   * @param message what failed, naming the type (and field)
   * @param cause the serializer's error
   */
  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * An encoding or decoding failure.
   *
   * @param message what failed, naming the type (and field)
   */
  public CodecException(String message) {
    super(message);
  }

  /**
   * The message of stored bytes that do not fit {@code type} ({@code problem} says where and
   * how), with what to do about the usual cause: a component whose type changed since they were
   * stored. Stored bytes are never converted, so the fix is in the record or the state.
   *
   * @param type the name of the type being read
   * @param problem where and how the bytes do not fit
   * @return the message, pointing to docs/CONNECTORS.md
   */
  public static String doesNotFit(String type, String problem) {
    return "cannot deserialize " + type + ": " + problem + ". If a component of " + type
        + " changed type since this was stored, keep that component as it was and give the new"
        + " type a component of its own (stored values then decode with it empty), or run"
        + " dropState with the version that stored them before upgrading; see docs/CONNECTORS.md,"
        + " \"Changing a tracking record\"";
  }

  /**
   * The message of a stored field that {@code type} has no component for: the component was
   * removed or renamed since the value was stored. The advice is that of the generated codecs
   * ({@code CodecFormatException.unknownField}): keep the component, or drop with the version
   * that stored it, never with this one, which reads the stored records too and fails the same
   * way.
   *
   * @param type the name of the type being read
   * @param kind what {@code type} is, for the message: {@code "record"} or {@code "class"}
   * @param field the stored field's name
   * @return the message, pointing to docs/CONNECTORS.md
   */
  public static String removedField(String type, String kind, String field) {
    return "stored " + type + " has field '" + field + "' that the " + kind + " no longer has"
        + " (removed or renamed?): keep a component of that name, or run dropState with the"
        + " version that stored it before upgrading (this version cannot: dropState reads the"
        + " stored records too); see docs/CONNECTORS.md, \"Changing a tracking record\"";
  }
}
