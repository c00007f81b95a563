"""Rendering the build sheet: a paginated QTextDocument with vector figures, a header and page numbers
on every page, into a PDF written atomically (temporary file, then rename).

Text stays text (selectable, searchable, fonts embedded by Qt's PDF engine); tables repeat their header
row when they break across pages; figures are QPainter drawings replayed into the PDF as vectors.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QLocale, QMarginsF, QObject, QRect, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QImage,
    QPagedPaintDevice,
    QPageLayout,
    QPageSize,
    QPainter,
    QPainterPath,
    QPdfWriter,
    QPen,
    QPyTextObject,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import atomic_replace, pdf_problem, safe_read_bytes
from configurator.catalog.loader import Catalog, default_catalog
from configurator.engine import Build, BuildResult
from configurator.engine.model.buildcode import qr_modules
from configurator.paths import resource
from configurator.report.attachment import ATTACHMENT_NAME, attach_build, read_attached_build, with_build_code
from configurator.report.figures import draw_chassis, draw_headroom
from configurator.report.pagination import add_row_break, first_split_row, keep_together
from configurator.report.sheet import (
    APP_NAME,
    FIGURE_MARK,
    ROW_BREAKS,
    SheetOptions,
    build_html,
    reference_number,
    seller,
    table_parts,
)

FIGURE_TYPE = QTextFormat.ObjectTypes.UserObject + 1
FIGURE_ID = QTextFormat.Property.UserProperty + 1
MARGIN_MM, HEADER_MM, FOOTER_MM = 14.0, 14.0, 9.0
QR_WIDTH_FRACTION = 0.3  # of the text width: about 55 mm on A4, modules of 0.6-0.8 mm for a phone camera
MAX_ROW_SPLITS = 12
# read_attached_build, first_split_row and the rest: callers and tests import them from here
__all__ = [
    "ATTACHMENT_NAME",
    "BuildSheet",
    "attach_build",
    "default_page",
    "draw_qr",
    "ensure_app",
    "export_pdf",
    "first_split_row",
    "keep_together",
    "page_layout",
    "read_attached_build",
    "with_build_code",
]
PAGE_SIZES = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}


def ensure_app() -> QGuiApplication:
    """A Qt application for fonts and painting; offscreen when there is no display (batch export).

    A QApplication (not just QGuiApplication), so the window or a test harness can share it later.
    """
    app = QGuiApplication.instance()
    if app is None:
        if sys.platform == "linux" and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication(sys.argv[:1])
    return app  # type: ignore[return-value]


def default_page() -> str:
    """Letter where the locale measures in US units, A4 elsewhere (the paper size that locale uses)."""
    imperial = QLocale.system().measurementSystem() == QLocale.MeasurementSystem.ImperialUSSystem
    return "letter" if imperial else "a4"


class FigureObject(QPyTextObject):
    """Draws a figure where its marker was, as vectors, sized to the text width."""

    def __init__(self, build: Build, result: BuildResult, catalog: Catalog, parent: QObject | None = None,
                 code: str | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.build, self.result, self.catalog, self.code = build, result, catalog, code


    def intrinsicSize(self, doc: QTextDocument, pos: int, fmt: QTextFormat) -> QSizeF:
        width = doc.textWidth() - 4
        kind = str(fmt.property(FIGURE_ID))
        if kind == "qr":
            return QSizeF(width * QR_WIDTH_FRACTION, width * QR_WIDTH_FRACTION)
        if kind == "chassis":
            chassis = self.catalog.chassis.get(self.build.chassis)
            slots = max((p.x + max(p.max_width, 1) for p in chassis.positions), default=8) if chassis else 8
            sxm = bool(chassis and any(p.kind == "sxm" for p in chassis.positions))
            # at most 0.45 of the width high: at 0.62 an 8-slot server took half a page and pushed the bill of
            # materials' total onto the next one
            ratio = 0.42 if sxm else min(0.45, 0.07 * slots + 0.05)
            return QSizeF(width, width * ratio)
        return QSizeF(width, width * 0.36)

    def drawObject(
        self, painter: QPainter, rect: QRectF | QRect, doc: QTextDocument, pos: int, fmt: QTextFormat
    ) -> None:
        kind = str(fmt.property(FIGURE_ID))
        k = painter.device().logicalDpiX() / 72.0  # draw in points, whatever the device resolution
        box = QRectF(rect)  # Qt's interface allows an integer rectangle too
        painter.save()
        painter.translate(box.topLeft())
        painter.scale(k, k)
        area = QRectF(0, 0, box.width() / k, box.height() / k)
        if kind == "chassis":
            draw_chassis(painter, area, self.build, self.catalog)
        elif kind == "qr" and self.code:
            draw_qr(painter, area, self.code)
        elif kind.startswith("headroom:"):
            i = int(kind.split(":")[1])
            draw_headroom(painter, area, self.result.jobs[i])
        painter.restore()


def draw_qr(painter: QPainter, area: QRectF, code: str) -> None:
    """The build code as a QR (engine.model.buildcode.qr_modules), as filled vector squares."""
    rows = qr_modules(code)
    n = len(rows)
    side = min(area.width(), area.height())
    k = side / n
    path = QPainterPath()
    for y, row in enumerate(rows):
        x = 0
        while x < n:  # one rectangle per run of dark modules: no hairline gaps between neighbours
            if row[x]:
                start = x
                while x < n and row[x]:
                    x += 1
                path.addRect(QRectF(area.left() + start * k, area.top() + y * k, (x - start) * k, k))
            else:
                x += 1
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    painter.fillRect(QRectF(area.left(), area.top(), side, side), QColor("white"))
    path.setFillRule(Qt.FillRule.WindingFill)
    painter.fillPath(path, QColor("black"))
    painter.restore()


def page_document(device: QPagedPaintDevice, style: str, header_mm: float = HEADER_MM,
                  footer_mm: float = FOOTER_MM) -> tuple[QTextDocument, QRectF]:  # fmt: skip
    """A text document laid out for ``device``'s pages inside the margins (``header_mm`` and ``footer_mm`` kept
    for the page's own lines), in the sheets' type, with ``style``; and the body's rectangle. The build sheet and
    the HTML PDFs (plan, acceptance report) both start from it."""
    dpi = device.logicalDpiX()
    mm = dpi / 25.4
    page = device.pageLayout().fullRectPixels(dpi)
    body = QRectF(MARGIN_MM * mm, (MARGIN_MM + header_mm) * mm, page.width() - 2 * MARGIN_MM * mm,
                  page.height() - (2 * MARGIN_MM + header_mm + footer_mm) * mm)  # fmt: skip
    doc = QTextDocument()
    doc.documentLayout().setPaintDevice(device)
    font = QFont("DejaVu Sans")
    font.setPointSizeF(9)
    doc.setDefaultFont(font)
    doc.setDefaultStyleSheet(style)
    doc.setPageSize(body.size())
    return doc, body


def paint_pages(device: QPagedPaintDevice, doc: QTextDocument, body: QRectF,
                decorate: Callable[[QPainter, int, int], None]) -> int:  # fmt: skip
    """Paint every page of ``doc`` (laid out by page_document) on ``device``: ``decorate(painter, page, pages)``
    draws the page's own lines, then the body's slice of that page; returns the page count."""
    pages = doc.pageCount()
    painter = QPainter()
    if not painter.begin(device):
        raise OSError("cannot start painting on the output")
    try:
        for i in range(pages):
            if i:
                device.newPage()
            decorate(painter, i + 1, pages)
            painter.save()
            painter.translate(body.left(), body.top() - i * body.height())
            clip = QRectF(0, i * body.height(), body.width(), body.height())
            painter.setClipRect(clip)
            ctx = QAbstractTextDocumentLayout.PaintContext()
            ctx.clip = clip  # only blocks on this page go into its content stream
            doc.documentLayout().draw(painter, ctx)
            painter.restore()
    finally:
        painter.end()
    return pages


def draw_footer(painter: QPainter, width: float, height: float, mm: float, page: int, pages: int, note: str) -> None:
    """A page's foot: ``note`` on the left, 'Page n of m' on the right, inside the margins (grey, the font set)."""
    left, bottom = MARGIN_MM * mm, height - MARGIN_MM * mm
    row = QRectF(left, bottom - 5 * mm, width - 2 * left, 5 * mm)
    painter.setPen(QColor("#555555"))
    painter.drawText(row, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"Page {page} of {pages}")
    painter.drawText(row, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, note)


class BuildSheet:
    """A laid-out sheet for one build, ready to paint on a PDF writer or a printer (preview)."""

    def __init__(self, build: Build, result: BuildResult, catalog: Catalog | None = None,
                 options: SheetOptions | None = None) -> None:  # fmt: skip
        self.build, self.result = build, result
        self.catalog = catalog or default_catalog()
        self.options = with_build_code(options or SheetOptions(), build)
        self.reference = reference_number(build, self.options.date)

    def _document(self, device: QPagedPaintDevice) -> tuple[QTextDocument, QRectF]:
        doc, body = page_document(
            device,
            "h1 {font-size: 16pt} h2 {font-size: 12pt} h3 {font-size: 10pt} td {font-size: 7.5pt} th {font-size: 7pt}",
        )
        self._handler = FigureObject(self.build, self.result, self.catalog, doc, self.options.build_code)
        doc.documentLayout().registerHandler(FIGURE_TYPE, self._handler)
        # Lay out, then move whole what would break across a page: paragraphs (keep_together) and table
        # rows (the sheet splits that table before the row, header repeated). Each split moves only what
        # follows it, so the first split row is fixed and the layout run again, a few times at most.
        breaks: dict[int, set[int]] = {}
        for _ in range(MAX_ROW_SPLITS + 1):
            token = ROW_BREAKS.set({k: frozenset(v) for k, v in breaks.items()})
            try:
                doc.setHtml(build_html(self.build, self.result, self.catalog, self.options))
                parts = table_parts()
            finally:
                ROW_BREAKS.reset(token)
            self._insert_figures(doc)
            # Inserting the figure objects leaves later blocks only partly laid out (zero-sized, so never
            # painted); a full relayout after the edits fixes that.
            doc.markContentsDirty(0, doc.characterCount())
            doc.documentLayout().documentSize()
            keep_together(doc)
            if not add_row_break(breaks, parts, first_split_row(doc)):
                break
        return doc, body

    def prepare(self, device: QPagedPaintDevice) -> tuple[QTextDocument, QRectF]:
        """The laid-out document for ``device`` and its text area (what paint() draws), for checks and previews."""
        return self._document(device)

    def _insert_figures(self, doc: QTextDocument) -> None:
        ids = ["chassis", "qr"] + [f"headroom:{i}" for i, j in enumerate(self.result.jobs) if j.cards]
        # One edit block: the document lays itself out once when it closes, not after every insertion (~5 ms each).
        block = QTextCursor(doc)
        block.beginEditBlock()
        try:
            for fig in ids:
                cursor = doc.find(FIGURE_MARK.format(fig))
                if cursor.isNull():
                    continue
                fmt = QTextCharFormat()
                fmt.setObjectType(FIGURE_TYPE)
                fmt.setProperty(FIGURE_ID, fig)
                cursor.insertText("\ufffc", fmt)
        finally:
            block.endEditBlock()

    def paint(self, device: QPagedPaintDevice) -> int:
        """Paint every page on ``device``; returns the page count."""
        doc, body = self._document(device)
        return paint_pages(device, doc, body, lambda painter, page, pages: self._header_footer(painter, device, page,
                                                                                              pages))  # fmt: skip

    def _header_footer(self, painter: QPainter, device: QPagedPaintDevice, page: int, pages: int) -> None:
        dpi = device.logicalDpiX()
        mm = dpi / 25.4
        full = device.pageLayout().fullRectPixels(dpi)
        left, right = MARGIN_MM * mm, full.width() - MARGIN_MM * mm
        top = MARGIN_MM * mm
        painter.save()
        logo = QRectF(left, top, 9 * mm, 9 * mm)
        self._draw_logo(painter, logo)
        f = QFont("DejaVu Sans")
        f.setPointSizeF(10)
        f.setBold(True)
        painter.setFont(f)
        painter.setPen(QColor("#222222"))
        left_mid = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        right_mid = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        small = QFont(f)
        small.setBold(False)
        small.setPointSizeF(8)
        ref, date = f"Ref. {self.reference}", f"{self.options.date:%Y-%m-%d}"
        # each left-hand line ends 3 mm before its right-hand one: a long seller name ran over the reference
        ref_w = QFontMetricsF(small, device).horizontalAdvance(ref) + 3 * mm
        date_w = QFontMetricsF(small, device).horizontalAdvance(date) + 3 * mm
        seller_w = right - left - 11 * mm - ref_w
        name = seller(self.options)  # none given: "Build sheet" on the first line, not the app's name
        painter.drawText(QRectF(left + 11 * mm, top, seller_w, 5 * mm), left_mid,
                         fitted(painter, f, name or "Build sheet", seller_w, device))  # fmt: skip
        painter.setFont(small)
        line_w = right - left - 11 * mm - date_w
        under = f"Build sheet · {self.build.name}" if name else self.build.name
        line = QFontMetricsF(small, device).elidedText(under, Qt.TextElideMode.ElideRight, line_w)
        painter.drawText(QRectF(left + 11 * mm, top + 5 * mm, line_w, 5 * mm), left_mid, line)
        painter.drawText(QRectF(left, top, right - left, 5 * mm), right_mid, ref)
        painter.drawText(QRectF(left, top + 5 * mm, right - left, 5 * mm), right_mid, date)
        painter.setPen(QPen(QColor("#76B900"), 0.6 * mm))
        painter.drawLine(int(left), int(top + 11 * mm), int(right), int(top + 11 * mm))
        draw_footer(painter, full.width(), full.height(), mm, page, pages,
                    "GB = 10^9 bytes · figures from the configurator's sizing engine")  # fmt: skip
        painter.restore()

    def _draw_logo(self, painter: QPainter, rect: QRectF) -> None:
        path = self.options.seller_logo or str(resource("icons", "configurator.svg"))
        try:  # a regular file of at most 5 MB: a logo set to /dev/zero or a FIFO must not hang the export
            raw = safe_read_bytes(path)
        except FileError:
            return  # the CLI checks --logo first; a stored preference gone missing draws no logo
        data = QByteArray(raw)
        if path.lower().endswith(".svg") or b"<svg" in raw[:4096]:
            renderer = QSvgRenderer(data)
            if renderer.isValid():
                renderer.render(painter, rect)  # vector
                return
        image = QImage.fromData(data)
        if not image.isNull():
            painter.drawImage(rect, image)


def fitted(painter: QPainter, font: QFont, text: str, width: float, device: QPagedPaintDevice) -> str:
    """``text`` in ``font`` set on ``painter``, shrunk down to 7 pt to fit ``width`` and elided (…) past that."""
    f = QFont(font)
    while QFontMetricsF(f, device).horizontalAdvance(text) > width and f.pointSizeF() > 7.05:
        f.setPointSizeF(f.pointSizeF() - 0.5)
    painter.setFont(f)
    return QFontMetricsF(f, device).elidedText(text, Qt.TextElideMode.ElideRight, width)


def page_layout(page: str) -> QPageLayout:
    return QPageLayout(QPageSize(PAGE_SIZES.get(page, QPageSize.PageSizeId.A4)), QPageLayout.Orientation.Portrait,
                       QMarginsF(0, 0, 0, 0))  # fmt: skip


def export_pdf(path: str | os.PathLike[str], build: Build, result: BuildResult, catalog: Catalog | None = None,
               options: SheetOptions | None = None) -> int:  # fmt: skip
    """Write the build sheet to ``path``; returns the page count.

    The sheet carries the build twice: a QR of its code (engine.model.buildcode) and the build YAML as a PDF file
    attachment (``build.yaml``), added to Qt's output with pypdf (QPdfWriter cannot attach files).
    Written to a temporary file beside the target (``fileio.atomic_replace``), read back and checked as a
    whole PDF (header, cross-reference, %%EOF trailer) before it is renamed over the target, so an
    unwritable folder or a full disk (where Qt's PDF writer fails silently) leaves the old file as it was;
    the error (FileError) says what and where. A new file gets the user's usual permissions (umask).
    """
    ensure_app()
    options = with_build_code(options or SheetOptions(), build)
    pages = 0

    def produce(tmp: Path) -> None:
        nonlocal pages
        # Qt writes to a scratch file; pypdf copies it into ``tmp`` with the build attached.
        with tempfile.TemporaryDirectory(prefix="configurator-sheet-") as scratch:
            qt_out = Path(scratch) / "sheet.pdf"
            writer = QPdfWriter(str(qt_out))
            writer.setResolution(300)
            writer.setPageLayout(page_layout(options.page))
            writer.setTitle(f"Build sheet: {build.name}")
            writer.setCreator(APP_NAME)
            pages = BuildSheet(build, result, catalog, options).paint(writer)
            del writer  # flushes and closes the file
            if not qt_out.exists() or qt_out.stat().st_size == 0:
                raise OSError("the PDF writer produced an empty file (disk full?)")
            attach_build(str(qt_out), str(tmp), build)

    atomic_replace(path, produce, pdf_problem, what="the build sheet")
    return pages
