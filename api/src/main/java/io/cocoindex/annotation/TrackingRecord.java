package io.cocoindex.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A tracking record ({@code R} of {@code TargetHandler<V, R, A>}): what a handler remembers of a
 * target state for the next run. It must be an immutable record, since records of earlier runs
 * are compared with the desired state. The processor generates its codec ({@code
 * TableRecord_Codec}); the supported component types are those of {@link TargetValue}.
 *
 * <p>Stored records stay readable when the record evolves: a component added later decodes as
 * its default ({@code null}, {@code 0}, {@code false}, an empty collection or {@code
 * Optional.empty()}); a stored component the record no longer has (removed or renamed) fails
 * with an error naming the record and the field.
 *
 * <pre>{@code
 * @TrackingRecord
 * public record TableRecord(String schema, Fingerprint columns) {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface TrackingRecord {}
