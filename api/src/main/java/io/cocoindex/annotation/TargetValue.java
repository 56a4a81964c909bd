package io.cocoindex.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A record declared as the value of a target state (a row, a file's content, a table's spec), or
 * a record nested inside one. The processor generates its codec ({@code Row_Codec} beside {@code
 * Row}), which the runtime uses instead of the reflective fallback.
 *
 * <p>Components may be primitives and their boxes, {@code String}, {@code byte[]}, {@code UUID},
 * {@code Fingerprint}, {@code StableKey}, enums, records annotated {@code @TargetValue}, {@code
 * @ActionValue} or {@code @TrackingRecord}, and {@code List}, {@code Set} (of naturally ordered
 * elements), {@code Map<String, ?>} and {@code Optional} of those. Components marked {@link Key}
 * form the target state's key, so generated {@code declareXxx} methods take the value alone.
 *
 * <pre>{@code
 * @TargetValue
 * public record Row(@Key String id, String text, List<String> tags) {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface TargetValue {}
