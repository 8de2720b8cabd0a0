"""approval stage."""
