"""The plain verdict above the charts: "Verdict: fits. All 2 jobs fit." in the status's colour for the theme
(present/verdict.py says it), and a refused edit beside it for 8 s (the status bar alone was easy to miss)."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from configurator.engine import BuildResult
from configurator.present.verdict import build_verdict
from configurator.ui.base import OK_COLOUR, OK_COLOUR_DARK, SEVERITY_COLOUR, SEVERITY_COLOUR_DARK, ViewState

REFUSAL_MS = 8000


class VerdictLine(QLabel):
    def __init__(self, view: ViewState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.setObjectName("verdictLine")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setContentsMargins(6, 2, 6, 2)
        self.setAccessibleName("Verdict")
        self._result: BuildResult | None = None
        self._refusal = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(lambda: self.show_refusal(""))
        view.theme_changed.connect(lambda _dark: self._draw())

    def show_result(self, result: BuildResult) -> None:
        self._result = result
        self._draw()

    def show_refusal(self, reason: str) -> None:
        """Say ``reason`` beside the verdict for 8 s ('' clears it)."""
        self._refusal = reason
        self._draw()
        if reason:
            self._timer.start(REFUSAL_MS)

    def _draw(self) -> None:
        if self._result is None:
            return
        v = build_verdict(self._result)
        dark = self.view.dark
        kind = {"fits": "ok", "tight": "warning", "does-not-fit": "error"}.get(v.status, "info")
        severity = SEVERITY_COLOUR_DARK if dark else SEVERITY_COLOUR
        colour = (OK_COLOUR_DARK if dark else OK_COLOUR) if kind == "ok" else severity[kind]
        text = escape(v.sentence[:1].upper() + v.sentence[1:])
        refusal = self._refusal
        said = f" <span style='color:{severity['error']}'>· Refused: {escape(refusal)}</span>" if refusal else ""
        self.setText(f"<span style='font-size:11pt'><b>Verdict: <span style='color:{colour}'>"
                     f"{escape(v.word)}</span></b> · {text}.{said}</span>")  # fmt: skip
