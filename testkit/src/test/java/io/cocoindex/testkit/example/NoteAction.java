package io.cocoindex.testkit.example;

import io.cocoindex.annotation.ActionValue;

/** What the note sink does; {@code text} null: delete the note. */
@ActionValue
public record NoteAction(String folder, String title, String text) {}
