package io.cocoindex.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A record a handler returns as its action ({@code A} of {@code TargetHandler<V, R, A>}) and its
 * sink applies. The processor generates its codec ({@code RowAction_Codec}); the supported
 * component types are those of {@link TargetValue}.
 *
 * <pre>{@code
 * @ActionValue
 * public record RowAction(String key, String value) {} // value null = delete
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface ActionValue {}
