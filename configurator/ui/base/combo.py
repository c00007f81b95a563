"""A drop-down that asks for the width of its longest entry and, given less, cuts the shown entry in the middle:
'NVIDIA RTX PRO 6000 Blackwell Server Edition' in a narrow box reads 'NVIDIA RTX…Server Edition', so Server and
Workstation stay apart (the right-hand cut read 'NVIDIA RTX PRO 6000 Bla…' for both: review 2 #22)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget


class MiddleElidedComboBox(QComboBox):
    """A QComboBox whose size hint fits its widest entry (its minimum stays ``setMinimumContentsLength``'s, so a
    narrow window can still shrink it) and whose shown entry is elided in the middle where it is narrower."""

    def __init__(self, parent: QWidget | None = None, min_chars: int = 16) -> None:
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(min_chars)
        # the layout asks again when the entries change (QComboBox does so only under AdjustToContents)
        model = self.model()
        model.rowsInserted.connect(self._entries_changed)
        model.rowsRemoved.connect(self._entries_changed)
        model.modelReset.connect(self._entries_changed)
        model.dataChanged.connect(self._entries_changed)

    def _entries_changed(self, *_: object) -> None:
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        fm = self.fontMetrics()
        widest = max((fm.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        opt.rect = QRect(0, 0, 1000, hint.height())  # what the frame and the arrow take, the same at any width
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)  # fmt: skip
        return QSize(max(hint.width(), widest + 1000 - field.width() + 2), hint.height())

    def shown_text(self) -> str:
        """The current entry as drawn at the box's width (elided in the middle where it does not fit)."""
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)  # fmt: skip
        text = opt.currentText if self.currentIndex() >= 0 else self.placeholderText()  # as QComboBox draws it
        return self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, field.width())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        opt.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)
