"""pypto-lsp: a language server showing what PyPTO's outlining passes make of the code being edited."""

__version__ = "0.1.0"
