"""The build sheet for the main window: print preview and PDF export.

A mixin of :class:`~configurator.ui.shell.main_window.MainWindow`. The sheet carries the seller's price
list from Preferences (``SheetOptions(prices=...)``).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog

from configurator.catalog.errors import FileError
from configurator.catalog.prices import load_price_list


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
        )

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
        from PySide6.QtPrintSupport import QPrinter, QPrintPreviewDialog
        from PySide6.QtWidgets import QToolBar

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
        if toolbar is not None:
            toolbar.addSeparator()
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
            dialog.accept()

    def export_sheet_to(self, path: Path, page: str | None = None) -> bool:
        """Write the build sheet; an unwritable path shows a message and leaves no file behind.

        Synchronous: running export_pdf on a QThread hung in the offscreen test run (not yet diagnosed),
        so the worker (``_SheetWorker``) is not wired in yet."""
        from configurator.report.pdf import export_pdf

        options = self.sheet_options()
        if page:
            options.page = page
        try:
            pages = export_pdf(path, self.doc.build, self.doc.result, self.doc.catalog, options)
        except FileError as exc:
            self.show_error("Cannot export build sheet", str(exc))
            self.sheet_written.emit(path, 0)
            return False
        self.statusBar().showMessage(f"Build sheet saved: {path} ({pages} pages)", 8000)
        self.sheet_written.emit(path, pages)
        return True

    def wait_for_sheet(self, timeout_ms: int = 60_000) -> None:
        """Nothing runs in the background yet (see export_sheet_to)."""
