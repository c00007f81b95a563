"""The build sheet for the main window: print preview and PDF export.

A mixin of :class:`~configurator.ui.shell.main_window.MainWindow`. The sheet carries the seller's price
list from Preferences (``SheetOptions(prices=...)``).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QProgressBar

from configurator.catalog.errors import FileError
from configurator.catalog.prices import load_price_list
from configurator.ui.shell.sheet_worker import SheetWriter


class SheetMixin:
    """Needs ``sheet_written = Signal(object, int)`` on the window class (a QObject)."""

    def sheet_options(self):  # type: ignore[no-untyped-def]
        from configurator.report.pdf import default_page
        from configurator.report.sheet import SheetOptions

        return SheetOptions(
            seller_name=self.settings.get("seller_name"),
            seller_logo=self.settings.get("seller_logo") or None,
            page=self.settings.get("page") or default_page(),
            prices=self.price_list(),
            customer=self.sheet_customer,
            base_dir=self.doc.models.base_dir,  # the build's relative config.json paths, for its traced results
        )

    @property
    def sheet_customer(self) -> str:
        """The customer typed in the sheet's preview, for this session's sheets ('' until then)."""
        return str(getattr(self, "_sheet_customer", ""))

    @sheet_customer.setter
    def sheet_customer(self, name: str) -> None:
        self._sheet_customer = name

    def price_list(self):  # type: ignore[no-untyped-def]
        """The seller's price list from Preferences (None when unset); a bad file says why in the status bar
        and the sheet goes without prices rather than not at all."""
        path = self.settings.get("price_list")
        if not path:
            return None
        try:
            return load_price_list(path, set(self.doc.catalog.cards) | set(self.doc.catalog.chassis))
        except FileError as exc:
            self.statusBar().showMessage(f"Price list not used: {exc}", 10000)
            return None

    def preview_dialog(self):  # type: ignore[no-untyped-def]
        """Print preview of the build sheet, with a Save PDF button; page size changeable in the dialog."""
        from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog, QPrintPreviewWidget
        from PySide6.QtWidgets import QLineEdit, QToolBar

        from configurator.report.pdf import BuildSheet, page_layout

        options = self.sheet_options()
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageLayout(page_layout(options.page))
        dialog = QPrintPreviewDialog(printer, self)
        dialog.setWindowTitle(f"Build sheet — {self.doc.build.name}")
        sheet = BuildSheet(self.doc.build, self.doc.result, self.doc.catalog, options)
        dialog.paintRequested.connect(sheet.paint)
        save = QAction("Save PDF…", dialog)
        save.setShortcut(QKeySequence.StandardKey.Save)  # the toolbar's buttons take no focus: the key is the way in
        save.setToolTip(f"Save this build sheet as a PDF file ({save.shortcut().toString()})")
        save.triggered.connect(lambda: self._save_sheet_dialog(printer, dialog))
        toolbar = dialog.findChild(QToolBar)
        # who the quote is for, printed on the first page (blank lines to sign in by hand when empty)
        customer = QLineEdit(self.sheet_customer)
        customer.setObjectName("sheetCustomer")
        customer.setPlaceholderText("Customer (printed on page 1)")
        customer.setMaximumWidth(280)
        customer.setAccessibleName("Customer")

        def set_customer() -> None:
            if customer.text().strip() != sheet.options.customer:
                self.sheet_customer = sheet.options.customer = customer.text().strip()
                preview = dialog.findChild(QPrintPreviewWidget)
                if preview is not None:
                    preview.updatePreview()

        customer.editingFinished.connect(set_customer)
        dialog._customer = customer
        if toolbar is not None:
            toolbar.addSeparator()
            toolbar.addWidget(customer)
            toolbar.addAction(save)
        dialog._sheet = sheet  # keep the sheet alive as long as the dialog
        return dialog

    def export_sheet(self) -> None:
        self.preview_dialog().exec()

    def _save_sheet_dialog(self, printer, dialog) -> None:  # type: ignore[no-untyped-def]
        from PySide6.QtGui import QPageSize

        page = "letter" if printer.pageLayout().pageSize().id() == QPageSize.PageSizeId.Letter else "a4"
        start = str(Path(self.settings.get("last_folder") or Path.home()) / f"{self.doc.build.name}.pdf")
        path, _ = QFileDialog.getSaveFileName(dialog, "Save build sheet", start, "PDF (*.pdf)")
        if path and self.export_sheet_to(Path(path), page):
            dialog.accept()  # the window's status bar shows the write; a failure comes back as a message

    def export_sheet_to(self, path: Path, page: str | None = None) -> bool:
        """Write the build sheet on a worker thread (shell/sheet_worker.py), the status bar busy meanwhile;
        ``sheet_written(path, pages)`` when it is done, pages 0 when it failed, after a message saying why
        (an unwritable path leaves no file behind: export_pdf writes atomically). Returns whether the write
        started: one sheet at a time."""
        writer = self.sheet_writer()
        options = self.sheet_options()
        if page:
            options.page = page
        if not writer.start(path, self.doc.build, self.doc.result, self.doc.catalog, options):
            self.statusBar().showMessage("A build sheet is still being written; try again when it is saved", 8000)
            return False
        self._sheet_busy(path)
        return True

    def sheet_writer(self) -> SheetWriter:
        writer = getattr(self, "_sheet_writer", None)
        if writer is None:
            writer = self._sheet_writer = SheetWriter(self)
            writer.finished.connect(self._sheet_done)
        return writer

    def _sheet_busy(self, path: Path | None) -> None:
        """The status bar's busy bar and message while a sheet is written; Export waits for it."""
        bar = getattr(self, "_sheet_bar", None)
        if bar is None:
            bar = self._sheet_bar = QProgressBar()
            bar.setRange(0, 0)  # busy: export_pdf reports no steps
            bar.setMaximumWidth(140)
            bar.setAccessibleName("Writing the build sheet")
            self.statusBar().addPermanentWidget(bar)
        bar.setVisible(path is not None)
        self.export_action.setEnabled(path is None)
        if path is not None:
            self.statusBar().showMessage(f"Writing the build sheet to {path}…")

    def _sheet_done(self, path: Path, pages: int, error: str) -> None:
        self._sheet_busy(None)
        if error:
            self.statusBar().clearMessage()
            self.show_error("Cannot export build sheet", error)
        else:
            self.statusBar().showMessage(f"Build sheet saved: {path} ({pages} pages)", 8000)
        self.sheet_written.emit(path, pages)

    def wait_for_sheet(self, timeout_ms: int = 60_000) -> bool:
        """Until a sheet being written is saved (closing and quitting call it); True when none is running."""
        writer = getattr(self, "_sheet_writer", None)
        return writer is None or writer.wait(timeout_ms)
