"""Preferences: seller name, logo and price list for the build sheet, paper size, display units, demo PIN."""

from __future__ import annotations

from PySide6.QtCore import QRegularExpression
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QWidget,
)

from configurator.catalog.errors import FileError
from configurator.catalog.prices import load_price_list
from configurator.present.verdict import plural
from configurator.present.words import UNIT_WORDS, UNITS
from configurator.ui.base import OPTIONS, Settings, WrapLabel, safe_message

MIN_PIN = 4  # digits a new demo PIN needs here: a one-digit PIN was accepted, guessed in ten tries at most (a
# PIN the settings file already holds stays usable, 1 to 12 digits: settings.py)


def pin_problem(pin: str, again: str) -> str | None:
    """Why the PIN typed twice (``pin``, then ``again``) is not taken, or None: both empty (the PIN is kept)
    or the same 4 to 12 digits."""
    if not pin and not again:
        return None
    if not pin:
        return "Type the new PIN in the Demo PIN field too, or clear Confirm PIN to keep the current one."
    if not (pin.isdigit() and MIN_PIN <= len(pin) <= 12):
        return f"The demo PIN needs {MIN_PIN} to 12 digits; this one has {plural(len(pin), 'digit')}."
    if pin != again:
        return ("The two PINs differ: type the new PIN again in Confirm PIN." if again
                else "Type the new PIN again in Confirm PIN.")  # fmt: skip
    return None


class PreferencesDialog(QDialog):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.settings = settings
        form = QFormLayout(self)
        self.setMinimumWidth(520)  # the path fields' hints read whole ("SVG or PNG; the a…" at 320 px)
        self.seller = QLineEdit(settings.get("seller_name"))
        self.seller.setToolTip("Printed in the header of every build sheet")
        form.addRow("Seller name", self.seller)
        self.logo = QLineEdit(settings.get("seller_logo"))
        self.logo.setPlaceholderText("SVG or PNG; the app icon when empty")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.logo, 1)
        row.addWidget(browse)
        form.addRow("Seller logo", row)
        self.prices = QLineEdit(settings.get("price_list"))
        self.prices.setPlaceholderText("YAML or CSV; no prices on the sheet when empty")
        self.prices.setToolTip("The seller's price list: the build sheet then carries a bill of materials")
        browse_prices = QPushButton("Browse…")
        browse_prices.clicked.connect(self._browse_prices)
        row = QHBoxLayout()
        row.addWidget(self.prices, 1)
        row.addWidget(browse_prices)
        form.addRow("Price list", row)
        self.trace_python = QLineEdit(settings.get("trace_python"))
        self.trace_python.setPlaceholderText("this Python, or $CONFIGURATOR_TRACE_PYTHON")
        self.trace_python.setToolTip("A Python with the trace extra (pip install 'gpu-build-configurator[trace]') "
                                     "that runs Trace exactly, e.g. another venv's bin/python")  # fmt: skip
        form.addRow("Tracer Python", self.trace_python)
        self.page = QComboBox()
        self.page.addItem("From the locale", "")
        self.page.addItem("A4", "a4")
        self.page.addItem("US Letter", "letter")
        self.page.setCurrentIndex(max(self.page.findData(settings.get("page")), 0))
        form.addRow("Paper size", self.page)
        self.units = QComboBox()
        for unit in UNITS:
            self.units.addItem(UNIT_WORDS[unit], unit)
        self.units.setCurrentIndex(max(self.units.findData(settings.get("units")), 0))
        form.addRow("Units", self.units)
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)  # masked: the dialog may be open in the shop
        self.pin.setValidator(QRegularExpressionValidator(QRegularExpression(r"\d{0,12}"), self.pin))
        self.pin.setPlaceholderText("unchanged")
        self.pin.setToolTip(f"The PIN that leaves demo mode ({MIN_PIN} to 12 digits); empty keeps the current one")
        form.addRow("Demo PIN", self.pin)
        # masked, so typed twice: a typo locked the staff out of demo mode until `configurator demo-pin --reset`
        self.pin_again = QLineEdit()
        self.pin_again.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin_again.setValidator(QRegularExpressionValidator(QRegularExpression(r"\d{0,12}"), self.pin_again))
        self.pin_again.setPlaceholderText("the new PIN again")
        self.pin_again.setAccessibleName("Confirm demo PIN")
        form.addRow("Confirm PIN", self.pin_again)
        self.pin_message = WrapLabel()
        self.pin_message.setObjectName("pinMessage")
        self.pin_message.hide()
        form.addRow("", self.pin_message)
        for field in (self.pin, self.pin_again):
            field.textEdited.connect(lambda _text: self.pin_message.hide())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Seller logo", "", "Images (*.svg *.png *.jpg)")
        if path:
            self.logo.setText(path)

    def _browse_prices(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Price list", "", "Price lists (*.yaml *.yml *.csv)")
        if path:
            self.prices.setText(path)

    def accept(self) -> None:
        """Store the choices; a price list that does not load, or a new PIN that is not 4 to 12 digits typed
        the same twice, is refused with the reason and the dialog stays open (nothing stored)."""
        prices = self.prices.text().strip()
        if prices:
            try:
                load_price_list(prices)
            except FileError as exc:
                QMessageBox.warning(self, "Price list not usable", safe_message(str(exc)))
                return
        pin = self.pin.text()
        problem = pin_problem(pin, self.pin_again.text())
        if problem is not None:
            self.pin_message.setText(f"<b>PIN not changed.</b> {problem}")
            self.pin_message.show()
            (self.pin_again if pin and len(pin) >= MIN_PIN else self.pin).setFocus()
            return
        if pin:
            try:
                OPTIONS["demo/pin"].parse(pin)
            except ValueError as exc:
                QMessageBox.warning(self, "Demo PIN not usable", safe_message(str(exc)))
                return
            self.settings.set("demo/pin", pin)
        self.settings.set("price_list", prices)
        self.settings.set("seller_name", self.seller.text().strip())  # empty: no seller (the sheet leaves a blank)
        self.settings.set("seller_logo", self.logo.text().strip())
        self.settings.set("trace_python", self.trace_python.text().strip())
        self.settings.set("page", self.page.currentData())
        self.settings.set("units", self.units.currentData())
        super().accept()
