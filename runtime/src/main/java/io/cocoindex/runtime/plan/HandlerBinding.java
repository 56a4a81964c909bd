package io.cocoindex.runtime.plan;

import io.cocoindex.TargetHandler;
import io.cocoindex.runtime.codec.Codec;
import io.cocoindex.runtime.codec.CodecRegistry;
import io.cocoindex.runtime.codec.HandlerTypes;

/** A handler with the codecs of its value, tracking record and action types. */
@SuppressWarnings({"rawtypes", "unchecked"})
public record HandlerBinding(
    TargetHandler handler, Codec valueCodec, Codec recordCodec, Codec actionCodec) {

  public static HandlerBinding of(TargetHandler<?, ?, ?> handler, CodecRegistry codecs) {
    HandlerTypes types = HandlerTypes.of(handler);
    return new HandlerBinding(
        handler,
        codecs.codecFor(types.value()),
        codecs.codecFor(types.trackingRecord()),
        codecs.codecFor(types.action()));
  }
}
