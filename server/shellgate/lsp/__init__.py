"""The language server: pygls wiring over the library (see `server.py` for every feature)."""
