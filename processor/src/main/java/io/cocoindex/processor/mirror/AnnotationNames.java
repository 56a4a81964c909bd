package io.cocoindex.processor.mirror;

import io.cocoindex.annotation.ActionValue;
import io.cocoindex.annotation.Attachment;
import io.cocoindex.annotation.ChildHandler;
import io.cocoindex.annotation.ContainerTarget;
import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.NestedContainer;
import io.cocoindex.annotation.RootTarget;
import io.cocoindex.annotation.TargetValue;
import io.cocoindex.annotation.TrackingRecord;
import java.util.List;
import java.util.Set;

/** The qualified names of the annotations the processor reads. */
public final class AnnotationNames {
  private AnnotationNames() {}

  public static final String TARGET_VALUE = TargetValue.class.getCanonicalName();
  public static final String ACTION_VALUE = ActionValue.class.getCanonicalName();
  public static final String TRACKING_RECORD = TrackingRecord.class.getCanonicalName();
  public static final String KEY = Key.class.getCanonicalName();
  public static final String ROOT_TARGET = RootTarget.class.getCanonicalName();
  public static final String CONTAINER_TARGET = ContainerTarget.class.getCanonicalName();
  public static final String NESTED_CONTAINER = NestedContainer.class.getCanonicalName();
  public static final String CHILD_HANDLER = ChildHandler.class.getCanonicalName();
  public static final String ATTACHMENT = Attachment.class.getCanonicalName();

  /** The annotations that give a record a generated codec, in precedence order. */
  public static final List<String> CODEC_ANNOTATIONS =
      List.of(TRACKING_RECORD, TARGET_VALUE, ACTION_VALUE);

  public static final Set<String> ALL =
      Set.of(
          TARGET_VALUE,
          ACTION_VALUE,
          TRACKING_RECORD,
          KEY,
          ROOT_TARGET,
          CONTAINER_TARGET,
          NESTED_CONTAINER,
          CHILD_HANDLER,
          ATTACHMENT);

  /** {@code @Simple} for a qualified annotation name, as messages write it. */
  public static String simple(String qualifiedName) {
    return qualifiedName.substring(qualifiedName.lastIndexOf('.') + 1);
  }
}
