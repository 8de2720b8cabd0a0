"""agent stage."""
