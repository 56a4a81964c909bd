package io.cocoindex.runtime;

/**
 * One processing component that failed in a run, or, as {@code /}, the run's end-of-run
 * deletions refused ({@link DeletionLimitExceededException}).
 *
 * @param component the component path, e.g. {@code /"files"/"a.md"}
 * @param error what went wrong
 */
public record ComponentFailure(String component, Throwable error) {
  @Override
  public String toString() {
    return component + ": " + error;
  }
}
