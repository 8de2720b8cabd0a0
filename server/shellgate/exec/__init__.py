"""exec stage."""
