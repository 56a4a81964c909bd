package io.cocoindex.runtime.plan;

import io.cocoindex.TargetHandler;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.codec.HandlerTypes;

/**
 * A handler with the codecs of its value, tracking record and action types.
 *
 * @param handler the handler
 * @param valueCodec the codec of its value type {@code V}
 * @param recordCodec the codec of its tracking record type {@code R}
 * @param actionCodec the codec of its action type {@code A}
 */
@SuppressWarnings({"rawtypes", "unchecked"})
public record HandlerBinding(
    TargetHandler handler, Codec valueCodec, Codec recordCodec, Codec actionCodec) {

  /**
   * Binds {@code handler} to the codecs of the types its class fixes ({@link HandlerTypes#of}).
   *
   * @param handler the handler
   * @param codecs the registry the codecs come from
   * @return the binding
   * @throws io.cocoindex.runtime.codec.CodecException naming a type no codec factory handles
   */
  public static HandlerBinding of(TargetHandler<?, ?, ?> handler, CodecRegistry codecs) {
    HandlerTypes types = HandlerTypes.of(handler);
    return new HandlerBinding(
        handler,
        codecs.codecFor(types.value()),
        codecs.codecFor(types.trackingRecord()),
        codecs.codecFor(types.action()));
  }
}
