"""Pure text utilities shared by the services (no models, no I/O)."""
