package io.cocoindex.testkit.example;

import io.cocoindex.annotation.TrackingRecord;

/** What is remembered of a folder: its color (its name is its key). */
@TrackingRecord
public record FolderRecord(String color) {}
