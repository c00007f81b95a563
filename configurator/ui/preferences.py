"""Preferences: seller name and logo for the build sheet, paper size, display units."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from configurator.ui.settings import Settings


class PreferencesDialog(QDialog):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.settings = settings
        form = QFormLayout(self)
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
        self.page = QComboBox()
        self.page.addItem("From the locale", "")
        self.page.addItem("A4", "a4")
        self.page.addItem("US Letter", "letter")
        self.page.setCurrentIndex(max(self.page.findData(settings.get("page")), 0))
        form.addRow("Paper size", self.page)
        self.units = QComboBox()
        self.units.addItem("GB (10^9 bytes, as the seeds)", "GB")
        self.units.addItem("GiB (2^30 bytes)", "GiB")
        self.units.setCurrentIndex(max(self.units.findData(settings.get("units")), 0))
        form.addRow("Units", self.units)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Seller logo", "", "Images (*.svg *.png *.jpg)")
        if path:
            self.logo.setText(path)

    def accept(self) -> None:
        self.settings.set("seller_name", self.seller.text().strip() or "GPU Build Configurator")
        self.settings.set("seller_logo", self.logo.text().strip())
        self.settings.set("page", self.page.currentData())
        self.settings.set("units", self.units.currentData())
        super().accept()
