"""The engine's errors, warnings and notes, each with its sentence; clicking one selects its slot or job."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QStyle, QWidget

from configurator.catalog.richtext import escape_rich
from configurator.engine.model.result import BuildResult
from configurator.present.words import check_ref
from configurator.ui.base import OK_COLOUR, OK_COLOUR_DARK, SEVERITY_COLOUR, SEVERITY_COLOUR_DARK, ViewState, muted_ink

SLOT_ROLE = Qt.ItemDataRole.UserRole
JOB_ROLE = Qt.ItemDataRole.UserRole + 1
CODE_ROLE = Qt.ItemDataRole.UserRole + 2
MARK = {"error": "✖", "warning": "▲", "info": "ℹ"}


class ChecksPanel(QListWidget):
    slot_clicked = Signal(int)
    job_clicked = Signal(str)
    rows_resized = Signal()  # the rows were measured again (new checks, or a new width): the window refits the dock

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        # each row as tall as its wrapped lines (size_rows), scrolled by pixels: a row taller than the dock
        # scrolls instead of showing half its second line
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self._rows_width = -1  # the text width the rows were last measured at
        self.setAlternatingRowColors(True)
        self.setAccessibleName("Checks")
        self.itemActivated.connect(self._activated)
        self.itemClicked.connect(self._activated)
        self._dark = False
        self._result: BuildResult | None = None

    def follow(self, view: ViewState) -> None:
        """Take the theme from the view state and follow it."""
        if view.dark:  # light is how it starts
            self.set_dark(True)
        view.theme_changed.connect(self.set_dark)

    def set_dark(self, dark: bool) -> None:
        """Use the colours made for a dark (or light) background and redraw the list."""
        self._dark = dark
        if self._result is not None:
            self.update_result(self._result)

    def update_result(self, result: BuildResult) -> None:
        self._result = result
        self.clear()
        dark = self._dark
        colours = SEVERITY_COLOUR_DARK if dark else SEVERITY_COLOUR
        grey = muted_ink(self, QPalette.ColorRole.ToolTipBase)  # the code's line in a tooltip, on either theme
        if all(check.severity == "info" for check in result.checks):
            # notes are not problems: say so first, then list them
            item = QListWidgetItem("✔ No problems found." + (" Notes:" if result.checks else ""))
            item.setForeground(QBrush(QColor(OK_COLOUR_DARK if dark else OK_COLOUR)))
            self.addItem(item)
        for check in result.checks:
            # the message only: the upper-case code ("PSU_TIGHT: …") is for support, in the tooltip
            item = QListWidgetItem(f"{MARK[check.severity]} {check.message}")
            item.setForeground(QBrush(QColor(colours[check.severity])))
            item.setData(SLOT_ROLE, check.slot)
            item.setData(JOB_ROLE, check.job)
            item.setData(CODE_ROLE, check.code)
            # a tooltip is parsed as rich text when it looks like markup: job names are user text. The
            # engineer's detail (API calls, settings, sources) is shown here, not on the first line.
            tip = f"<p>{escape_rich(check.message, 2000)}</p>"
            if check.detail:
                tip += f"<p><i>Details:</i> {escape_rich(check.detail, 2000)}</p>"
            tip += f"<p style='color:{grey}'>Check {check_ref(check.code)}</p>"
            item.setToolTip(tip)
            self.addItem(item)
        self.size_rows(force=True)

    def _text_width(self) -> int:
        """The width a row's text wraps at: the viewport's, less the item's margins (the style's focus frame
        on either side, and a scroll bar's width kept back so the bar showing does not rewrap the rows)."""
        margin = self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self) + 1
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)
        width = self.viewport().width() if self.verticalScrollBar().isVisible() else self.viewport().width() - bar
        return max(width - 2 * margin - 2 * self.spacing() - 4, 40)

    def size_rows(self, force: bool = False) -> None:
        """Give each row the height of its text wrapped at the list's width, in whole lines: the list's own
        measure took every row for one line, so a two-line check was drawn in a one-line row (review 2, 21)."""
        width = self._text_width()
        if width == self._rows_width and not force:
            return
        self._rows_width = width
        metrics = self.fontMetrics()
        pad = 2 * (self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameVMargin, None, self) + 1)
        for i in range(self.count()):
            item = self.item(i)
            text = metrics.boundingRect(QRect(0, 0, width, 1 << 20), Qt.TextFlag.TextWordWrap, item.text())
            lines = max(1, round(text.height() / metrics.lineSpacing()))
            item.setSizeHint(QSize(width, lines * metrics.lineSpacing() + pad))
        self.rows_resized.emit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.size_rows()

    ROWS = 5  # the checks shown without scrolling when the window makes room for them

    def wanted_height(self) -> int:
        """The height of the list's rows, up to ROWS of them: one "No problems found." line took ~100 px of a
        1366x768 window."""
        rows = sum(self.sizeHintForRow(i) + 2 * self.spacing() for i in range(min(self.count(), self.ROWS)))
        return max(rows, self.fontMetrics().height() + 4) + 2 * self.frameWidth() + 2

    def codes(self) -> list[str]:
        return [self.item(i).data(CODE_ROLE) for i in range(self.count()) if self.item(i).data(CODE_ROLE)]

    def _activated(self, item: QListWidgetItem) -> None:
        slot = item.data(SLOT_ROLE)
        if slot is not None:
            self.slot_clicked.emit(int(slot))
        job = item.data(JOB_ROLE)
        if job:
            self.job_clicked.emit(str(job))
