package io.cocoindex.testkit.example;

import io.cocoindex.annotation.ActionValue;

/**
 * What the folder sink does. {@code refresh}: the folder is declared as it was, nothing to
 * write (a container's handler returns an action on every run; the sink skips these).
 */
@ActionValue
public record FolderAction(String name, String color, boolean delete, boolean refresh) {}
