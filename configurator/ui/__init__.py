"""Qt user interface (PySide6, pyqtgraph). The only layer that imports Qt."""
