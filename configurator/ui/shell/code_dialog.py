"""File > Open from code…: a dialog to paste or type a build code (what a build sheet's QR code holds)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget


class CodeDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Open from code")
        layout = QVBoxLayout(self)
        hint = QLabel("Paste the build code printed under the QR code of a build sheet (or scanned from it):")
        hint.setWordWrap(True)
        layout.addWidget(hint)
        self.edit = QPlainTextEdit()
        self.edit.setPlaceholderText("build code")
        self.edit.setTabChangesFocus(True)
        layout.addWidget(self.edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.open_button = buttons.button(QDialogButtonBox.StandardButton.Open)
        self.open_button.setEnabled(False)
        self.edit.textChanged.connect(lambda: self.open_button.setEnabled(bool(self.code())))
        layout.addWidget(buttons)
        self.resize(520, 220)

    def code(self) -> str:
        """The code with line breaks and spaces removed (codes are often pasted wrapped)."""
        return "".join(self.edit.toPlainText().split())
