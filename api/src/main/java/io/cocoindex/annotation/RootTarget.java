package io.cocoindex.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A flat root handler: a {@code TargetHandler<V, R, A>} class with concrete type arguments whose
 * target states have no children. The processor generates the user-facing API class {@code
 * <name>s} (or {@link #api()}) in the handler's package:
 *
 * <pre>{@code
 * @RootTarget(provider = "example.com/search/document", name = "Document")
 * public final class DocumentHandler
 *     implements TargetHandler<Document, Fingerprint, DocumentAction> { ... }
 *
 * // generated: Documents.register(ctx, handler) registers the root provider for this run;
 * // documents.declareDocument(ctx, doc) declares one document (key from Document's @Key
 * // components, or declareDocument(ctx, key, doc) when Document has none).
 * Documents documents = Documents.register(ctx, new DocumentHandler(client));
 * documents.declareDocument(ctx, new Document("a", "hello"));
 * }</pre>
 *
 * <p>Each {@link Attachment} method of the handler adds a {@code declare<Attachment>} method.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
public @interface RootTarget {
  /**
   * The provider name, unique in an app (and checked unique in a compilation).
   *
   * @return the name the generated {@code register} registers the root provider under, such as
   *     {@code "example.com/db/table"}
   */
  String provider();

  /**
   * The target's noun, a Java identifier in UpperCamelCase: {@code declare<name>}.
   *
   * @return the noun, such as {@code "Document"}
   */
  String name();

  /**
   * The simple name of the generated API class; by default the regular English plural of {@link
   * #name()} ({@code Documents}, {@code Boxes}, {@code Directories}): set it for an irregular one.
   *
   * @return the API class's simple name, or {@code ""} for the plural of {@link #name()}
   */
  String api() default "";
}
