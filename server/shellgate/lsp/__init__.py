"""lsp stage."""
