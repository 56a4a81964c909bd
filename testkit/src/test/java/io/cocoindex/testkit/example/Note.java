package io.cocoindex.testkit.example;

import io.cocoindex.annotation.Key;
import io.cocoindex.annotation.TargetValue;

/** A note of a folder: a child target state. */
@TargetValue
public record Note(@Key String title, String text) {}
