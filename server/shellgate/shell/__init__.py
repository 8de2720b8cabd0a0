"""shell stage."""
