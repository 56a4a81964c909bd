package io.cocoindex.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A component of a {@link TargetValue} record that is part of the target state's key. One key
 * component is the key itself; several form an array key, in declaration order. A generated
 * {@code declareXxx} method for such a value takes the value alone and derives the key.
 *
 * <p>Key components are {@code String}, {@code long}, {@code int}, {@code short}, {@code byte},
 * {@code boolean} (or their boxes), {@code UUID}, {@code byte[]}, {@code Fingerprint} or {@code
 * StableKey}: the types {@code StableKey.of} accepts.
 *
 * <pre>{@code
 * @TargetValue
 * public record Row(@Key String table, @Key long id, String text) {}
 * // rows.declareRow(ctx, row) declares it under the key ["<table>", <id>]
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.RECORD_COMPONENT)
public @interface Key {}
