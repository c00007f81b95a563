"""A drop-down that asks for the width of its longest entry and, given less, cuts the shown entry in the middle:
'NVIDIA RTX PRO 6000 Blackwell Server Edition' in a narrow box reads 'NVIDIA RTX…Server Edition', so Server and
Workstation stay apart (the right-hand cut read 'NVIDIA RTX PRO 6000 Bla…' for both: review 2 #22)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget


def edit_field_width(combo: QComboBox) -> int:
    """The width the closed box has for its entry's words (the frame and the arrow left out), as Qt draws it."""
    opt = QStyleOptionComboBox()
    combo.initStyleOption(opt)
    return combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo).width()  # fmt: skip


class ShownTextComboBox(QComboBox):
    """A QComboBox that writes ``shown_text()`` in its closed box in place of the entry's whole label (the list keeps
    whole labels): the one paint of the boxes that shorten what they show."""

    def shown_text(self) -> str:
        return self.currentText()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        opt.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)


class MiddleElidedComboBox(ShownTextComboBox):
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
        text = self.currentText() if self.currentIndex() >= 0 else self.placeholderText()  # as QComboBox draws it
        return self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, edit_field_width(self))
