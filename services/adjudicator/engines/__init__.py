"""Adjudication engines: the shared interface, the local `jev` model and the `prompt` engine."""
