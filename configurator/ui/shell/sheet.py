"""The build sheet for the main window: print preview and PDF export, as an object the window holds
(``window.sheet``) with its own state: the writer thread, the status bar's busy bar.

The sheet carries the seller's price list from Preferences (``SheetOptions(prices=...)``). Who the quote is
for and who sells it are typed in the preview's toolbar and kept in the settings (``sheet/customer``,
``seller_name``), so the next session's sheet starts from them.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence, QPageSize
from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog, QPrintPreviewWidget
from PySide6.QtWidgets import QFileDialog, QLineEdit, QMainWindow, QMessageBox, QProgressBar, QToolBar

from configurator.catalog.errors import FileError
from configurator.catalog.prices import PriceList, load_price_list
from configurator.report.pdf import BuildSheet, default_page, page_layout
from configurator.report.sheet import SheetOptions
from configurator.ui.base import BuildDocument, Settings, safe_message
from configurator.ui.shell.sheet_worker import SheetWriter


class SheetPreview(QPrintPreviewDialog):
    """The print preview with the customer and seller fields and a Save PDF button in its toolbar."""

    def __init__(self, printer: QPrinter, parent: QMainWindow, sheet: BuildSheet) -> None:
        super().__init__(printer, parent)
        self.sheet = sheet  # kept alive as long as the dialog
        self.customer = self._field("sheetCustomer", "Customer", "Customer (printed on page 1)", sheet.options.customer)
        self.seller = self._field("sheetSeller", "Seller", "Seller (printed on page 1)", sheet.options.seller_name)

    @staticmethod
    def _field(name: str, label: str, hint: str, text: str) -> QLineEdit:
        field = QLineEdit(text)
        field.setObjectName(name)
        field.setPlaceholderText(hint)
        field.setMaximumWidth(280)
        field.setAccessibleName(label)
        return field

    def refresh(self) -> None:
        preview = self.findChild(QPrintPreviewWidget)
        if preview is not None:
            preview.updatePreview()


class SheetExport(QObject):
    written = Signal(object, int)  # (path, pages; 0 when it failed), after a background PDF export
    busy = Signal(bool)  # a sheet is being written (Export waits)

    def __init__(self, window: QMainWindow, doc: BuildDocument, settings: Settings) -> None:
        super().__init__(window)
        self.window, self.doc, self.settings = window, doc, settings
        self.writer = SheetWriter(self)
        self.writer.finished.connect(self._done)
        self._bar: QProgressBar | None = None

    @property
    def customer(self) -> str:
        """Who the quote is for, as last typed in the preview ('' until then); kept across sessions."""
        return str(self.settings.get("sheet/customer"))

    @customer.setter
    def customer(self, name: str) -> None:
        self.settings.set("sheet/customer", name)

    def options(self) -> SheetOptions:
        return SheetOptions(
            seller_name=self.settings.get("seller_name"),
            seller_logo=self.settings.get("seller_logo") or None,
            page=self.settings.get("page") or default_page(),
            prices=self.price_list(),
            customer=self.customer,
            base_dir=self.doc.models.base_dir,  # the build's relative config.json paths, for its traced results
        )

    def price_list(self) -> PriceList | None:
        """The seller's price list from Preferences (None when unset); a bad file says why in the status bar
        and the sheet goes without prices rather than not at all."""
        path = self.settings.get("price_list")
        if not path:
            return None
        try:
            return load_price_list(path, set(self.doc.catalog.cards) | set(self.doc.catalog.chassis))
        except FileError as exc:
            self.window.statusBar().showMessage(f"Price list not used: {exc}", 10000)
            return None

    def preview_dialog(self) -> SheetPreview:
        """Print preview of the build sheet, with a Save PDF button; page size changeable in the dialog."""
        options = self.options()
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageLayout(page_layout(options.page))
        sheet = BuildSheet(self.doc.build, self.doc.result, self.doc.catalog, options)
        dialog = SheetPreview(printer, self.window, sheet)
        dialog.setWindowTitle(f"Build sheet — {self.doc.build.name}")
        dialog.paintRequested.connect(sheet.paint)
        save = QAction("Save PDF…", dialog)
        save.setShortcut(QKeySequence.StandardKey.Save)  # the toolbar's buttons take no focus: the key is the way in
        save.setToolTip(f"Save this build sheet as a PDF file ({save.shortcut().toString()})")
        save.triggered.connect(lambda: self._save_dialog(printer, dialog))

        def set_customer() -> None:
            if dialog.customer.text().strip() != sheet.options.customer:
                self.customer = sheet.options.customer = dialog.customer.text().strip()
                dialog.refresh()

        def set_seller() -> None:
            name = dialog.seller.text().strip()
            if name and name != sheet.options.seller_name:  # empty: the Preferences' name stays
                self.settings.set("seller_name", name)
                sheet.options.seller_name = self.settings.get("seller_name")
                dialog.refresh()

        dialog.customer.editingFinished.connect(set_customer)
        dialog.seller.editingFinished.connect(set_seller)
        toolbar = dialog.findChild(QToolBar)
        if toolbar is not None:
            toolbar.addSeparator()
            toolbar.addWidget(dialog.customer)
            toolbar.addWidget(dialog.seller)
            toolbar.addAction(save)
        return dialog

    def export(self) -> None:
        self.preview_dialog().exec()

    def _save_dialog(self, printer: QPrinter, dialog: QPrintPreviewDialog) -> None:
        page = "letter" if printer.pageLayout().pageSize().id() == QPageSize.PageSizeId.Letter else "a4"
        start = str(Path(self.settings.get("last_folder") or Path.home()) / f"{self.doc.build.name}.pdf")
        path, _ = QFileDialog.getSaveFileName(dialog, "Save build sheet", start, "PDF (*.pdf)")
        if path and self.export_to(Path(path), page):
            dialog.accept()  # the window's status bar shows the write; a failure comes back as a message

    def export_to(self, path: Path, page: str | None = None) -> bool:
        """Write the build sheet on a worker thread (shell/sheet_worker.py), the status bar busy meanwhile;
        ``written(path, pages)`` when it is done, pages 0 when it failed, after a message saying why (an
        unwritable path leaves no file behind: export_pdf writes atomically). Returns whether the write
        started: one sheet at a time."""
        options = self.options()
        if page:
            options.page = page
        if not self.writer.start(path, self.doc.build, self.doc.result, self.doc.catalog, options):
            self.window.statusBar().showMessage("A build sheet is still being written; try again when it is saved",
                                                8000)  # fmt: skip
            return False
        self._busy(path)
        return True

    def _busy(self, path: Path | None) -> None:
        """The status bar's busy bar and message while a sheet is written; Export waits for it."""
        if self._bar is None:
            self._bar = QProgressBar()
            self._bar.setRange(0, 0)  # busy: export_pdf reports no steps
            self._bar.setMaximumWidth(140)
            self._bar.setAccessibleName("Writing the build sheet")
            self.window.statusBar().addPermanentWidget(self._bar)
        self._bar.setVisible(path is not None)
        self.busy.emit(path is not None)
        if path is not None:
            self.window.statusBar().showMessage(f"Writing the build sheet to {path}…")

    def show_error(self, title: str, text: str) -> None:
        QMessageBox.critical(self.window, title, safe_message(text))

    def _done(self, path: Path, pages: int, error: str) -> None:
        self._busy(None)
        if error:
            self.window.statusBar().clearMessage()
            self.show_error("Cannot export build sheet", error)
        else:
            self.window.statusBar().showMessage(f"Build sheet saved: {path} ({pages} pages)", 8000)
        self.written.emit(path, pages)

    def wait(self, timeout_ms: int = 60_000) -> bool:
        """Until a sheet being written is saved (closing and quitting call it); True when none is running."""
        return self.writer.wait(timeout_ms)
