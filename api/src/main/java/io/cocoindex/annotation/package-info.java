/**
 * Annotations read by {@code cocoindex-processor}, which generates codecs, child-handler
 * factories and fluent declare APIs, and rejects malformed connectors at compile time.
 *
 * <ul>
 *   <li>{@link io.cocoindex.annotation.TargetValue}, {@link io.cocoindex.annotation.ActionValue},
 *       {@link io.cocoindex.annotation.TrackingRecord}: records crossing the serialization
 *       boundary; {@link io.cocoindex.annotation.Key} marks key components of a value.
 *   <li>{@link io.cocoindex.annotation.RootTarget}, {@link
 *       io.cocoindex.annotation.ContainerTarget}: handlers with a generated API; {@link
 *       io.cocoindex.annotation.NestedContainer}: a child handler whose states are containers
 *       too, declared and mounted through the generated target classes.
 *   <li>{@link io.cocoindex.annotation.ChildHandler}, {@link io.cocoindex.annotation.Attachment}:
 *       handler methods building child and attachment handlers.
 * </ul>
 */
package io.cocoindex.annotation;
