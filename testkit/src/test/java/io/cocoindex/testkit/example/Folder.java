package io.cocoindex.testkit.example;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;

/** A folder of notes in a note service, as the app declares it: a container. */
@TargetValue
public record Folder(@Key String name, String color) {}
