"""Reports rendered from the engine's result: plain text (CLI) now, the PDF build sheet later."""
