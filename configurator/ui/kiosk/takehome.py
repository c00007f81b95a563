"""Take this build home: the shop-local code, the demo folder, the code panel, the flow behind the button."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QRectF, QStandardPaths, Qt, QThreadPool, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import regular_or_absent, safe_read_text
from configurator.catalog.loader import Catalog
from configurator.engine import Build, BuildResult
from configurator.engine.editing.kiosk import short_name
from configurator.engine.model.buildcode import CodeTooLarge, encode_build, qr_modules
from configurator.engine.model.buildfile import build_to_yaml, save_build
from configurator.engine.model.labels import method_name
from configurator.report.pdf import default_page, draw_qr, export_pdf
from configurator.report.sheet import SheetOptions, reference_number
from configurator.ui.base import BuildDocument, Settings
from configurator.ui.kiosk.scenarios import ACCENT, CODE_ALPHABET, CODE_LENGTH, MUTED
from configurator.ui.kiosk.widgets import Overlay, _font

# ---- take-home codes ------------------------------------------------------------------------------------


def demo_code(build: Build, date: dt.date, salt: int = 0) -> str:
    """Six characters from the build's content and the day (its build-sheet reference number)."""
    text = f"{reference_number(build, date)}|{build_to_yaml(build)}|{salt}"
    n = int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "big")
    out = []
    for _ in range(CODE_LENGTH):
        n, r = divmod(n, len(CODE_ALPHABET))
        out.append(CODE_ALPHABET[r])
    return "".join(out)


def default_demo_folder() -> Path:
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or str(Path.home())
    return Path(docs) / "configurator-demo"


def demo_folder(settings: Settings) -> Path:
    value = settings.get("demo/folder")
    return Path(value) if value else default_demo_folder()


def normalise_code(code: str) -> str:
    """Upper case, spaces and dashes dropped; letters that read like digits mapped to the alphabet."""
    text = re.sub(r"[\s\-_.]", "", code).upper()
    if len(text) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in text):
        raise ValueError(f"a demo code is {CODE_LENGTH} characters from {CODE_ALPHABET}, e.g. K7Q2MX; got {code!r}")
    return text


def open_demo_code(code: str, folder: str | Path | None = None) -> Path:
    """The build file a visitor saved under ``code`` (``<folder>/<CODE>.yaml``), for File → Open demo code….

    ``folder`` defaults to the demo folder of the user's settings. Raises ValueError for a malformed code
    and FileNotFoundError when no build was saved under it.
    """
    key = normalise_code(code)
    base = Path(folder) if folder else demo_folder(Settings())
    path = base / f"{key}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"no demo build saved under {key} in {base}")
    return path


class CodePanel(Overlay):
    """The build's QR code (engine.model.buildcode: it holds the whole build and opens anywhere with File > Open from
    code or ``configurator open-code``), and the shop reference the staff can also look up."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self.panel)
        layout.setContentsMargins(64, 32, 64, 32)
        layout.setSpacing(14)
        self.title = QLabel("Take this build home")
        self.title.setFont(_font(30, True))
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title.setWordWrap(True)  # a build's name runs longer than the panel: it was cut on both sides
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # named after the jobs' models: user text
        layout.addWidget(self.title)
        self.prompt = QLabel("Scan this code with your phone:")
        self.prompt.setFont(_font(24))
        self.prompt.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.prompt)
        self.qr = QLabel()
        self.qr.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.qr.setAccessibleName("Build QR code")
        layout.addWidget(self.qr)
        self.build_code = ""  # the GBC1: code the QR shows
        self.code = QLabel("")
        self.code.setFont(_font(22, True))
        self.code.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.code.setStyleSheet(f"color: {ACCENT};")
        self.code.setAccessibleName("Shop reference")
        self.code.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.code)
        self.note = QLabel("")
        self.note.setFont(_font(18))
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setStyleSheet(f"color: {MUTED};")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.note)
        self.done = QPushButton("Done")
        self.done.setFont(_font(24, True))
        self.done.setMinimumHeight(88)
        self.done.setObjectName("primary")
        self.done.clicked.connect(self.hide)
        layout.addWidget(self.done)

    def show_build(self, name: str, build_code: str, shop_code: str, side: int = 420) -> None:
        """The QR of ``build_code`` (``side`` px; '' when the build is too large for one QR), the shop code."""
        self.title.setText(name)
        self.build_code = build_code
        if build_code:
            self.qr.setPixmap(qr_pixmap(build_code, side))
            self.qr.show()
            self.prompt.setText("Scan this code to take the build with you:")
            self.note.setText("It holds the whole build: show it to our staff, or open it in the GPU Build "
                              "Configurator (File > Open from code). Your build sheet is kept at the stand "
                              "too.")  # fmt: skip
        else:
            self.qr.clear()
            self.qr.hide()
            self.prompt.setText("This build is too large for one QR code.")
            self.note.setText("Our staff will open it from the shop reference and send you its build sheet.")
        self.code.setText(f"Shop reference: {shop_code}")
        self.code.show()
        self.cover()

    def show_failure(self, reason: str) -> None:
        self.title.setText("Sorry, the build could not be saved")
        self.prompt.setText("Please ask our staff for help.")
        self.code.setText("")
        self.code.hide()
        self.qr.clear()
        self.qr.hide()
        self.build_code = ""
        self.note.setText(reason)
        self.cover()


def qr_pixmap(code: str, side: int) -> QPixmap:
    """``code``'s QR drawn with the build sheet's painter (report.pdf.draw_qr), whole pixels per module."""
    n = len(qr_modules(code))
    k = max(side // n, 2)
    image = QImage(n * k, n * k, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    draw_qr(painter, QRectF(0, 0, n * k, n * k), code)
    painter.end()
    return QPixmap.fromImage(image)


def take_home_name(build: Build, result: BuildResult) -> str:
    """The saved build's name after its jobs: 'Llama 3.3 70B QLoRA on RTX PRO 6000 Server' (not the
    scenario's question)."""
    jobs: list[str] = []
    for job, jr in zip(build.jobs, result.jobs, strict=False):
        cards = sorted({short_name(c.card_name) for c in jr.cards})
        on = f" on {' + '.join(cards)}" if cards else ""
        words = f"{jr.model_name} {method_name(job.method, capital=False)}{on}"
        if words not in jobs:
            jobs.append(words)
    return ("; ".join(jobs) or build.name)[:200]


@dataclass(frozen=True)
class TakeHome:
    shop_code: str
    build_code: str  # '' when the build is too large for one QR
    name: str


def write_take_home(build: Build, result: BuildResult, catalog: Catalog, settings: dict[str, str],
                    folder: Path, today: dt.date) -> TakeHome:  # fmt: skip
    """Write <CODE>.pdf and <CODE>.yaml into ``folder`` (no widget touched: runs on a worker thread).
    ``settings``: seller_name, seller_logo, page read on the GUI thread. FileError/OSError on failure."""
    build = build.model_copy(update={"name": take_home_name(build, result)})
    folder.mkdir(parents=True, exist_ok=True)
    text = build_to_yaml(build)
    salt = 0
    code = demo_code(build, today)
    while _other_build_under(folder / f"{code}.yaml", text):
        salt += 1
        code = demo_code(build, today, salt)
    try:
        build_code = encode_build(build)
    except CodeTooLarge:
        build_code = ""
    options = SheetOptions(
        seller_name=settings.get("seller_name") or SheetOptions.seller_name,
        seller_logo=settings.get("seller_logo") or None,
        page=settings.get("page") or default_page(),
        date=today,
    )
    export_pdf(folder / f"{code}.pdf", build, result, catalog, options)
    save_build(build, folder / f"{code}.yaml")
    return TakeHome(code, build_code, build.name)


def _other_build_under(path: Path, text: str) -> bool:
    """True when ``path`` holds something other than ``text`` (another build, or a FIFO or folder a code
    must not be written over): the code then takes the next salt. Read through the safe reader."""
    if not path.exists() and not path.is_symlink():
        return False
    if regular_or_absent(path) is not None:
        return True
    try:
        return safe_read_text(path) != text
    except FileError:
        return True


class _Relay(QObject):
    """Carries the worker's outcome to the GUI thread (a queued signal)."""

    done = Signal(object)


class TakeHomeFlow(QObject):
    """The take-home button and its panel: the build sheet and the build written (on a worker thread when the
    button is pressed), then the QR shown. ``done`` carries the shown shop reference line ('' on failure)."""

    done = Signal(str)

    def __init__(self, window: QWidget, button: QPushButton, document: BuildDocument, catalog: Catalog,
                 settings: Callable[[], Settings], scale: Callable[[], float]) -> None:  # fmt: skip
        super().__init__(window)
        self.button = button
        self.doc = document
        self.catalog = catalog
        self._settings = settings
        self._scale = scale
        self.saving = False
        self.code_panel = CodePanel(window)
        self._relay: _Relay | None = None
        button.clicked.connect(self.start)

    def _job(self) -> tuple[Build, BuildResult, Catalog, dict[str, str], Path, dt.date]:
        s = self._settings()
        options = {key: str(s.get(key) or "") for key in ("seller_name", "seller_logo", "page")}
        return self.doc.build, self.doc.result, self.catalog, options, demo_folder(s), dt.date.today()

    def show_outcome(self, outcome: TakeHome | Exception) -> str:
        if isinstance(outcome, Exception):
            self.code_panel.show_failure(str(outcome))
            return ""
        side = round(420 * self._scale())
        self.code_panel.show_build(outcome.name, outcome.build_code, outcome.shop_code, side)
        return outcome.shop_code

    def take_home(self) -> str:
        """Write the sheet and the build now (on this thread) and show the QR; the shop code ('' on failure)."""
        if self.saving:
            return ""
        try:
            outcome: TakeHome | Exception = write_take_home(*self._job())
        except (FileError, OSError) as exc:
            outcome = exc
        return self.show_outcome(outcome)

    def start(self) -> None:
        """The button: the PDF is written on a worker thread (issue 11 item 8) while the button says so."""
        if self.saving:
            return
        self.saving = True
        self.button.setEnabled(False)
        self.button.setText("Preparing your build sheet…")
        job = self._job()
        relay = _Relay(self)
        relay.done.connect(self._finished)
        self._relay = relay  # kept alive until the worker reports

        def work() -> None:
            try:
                outcome: TakeHome | Exception = write_take_home(*job)
            except (FileError, OSError) as exc:
                outcome = exc
            except Exception as exc:
                outcome = RuntimeError(f"the build sheet could not be written: {exc}")
            relay.done.emit(outcome)

        # a Qt pool thread, not a Python one: the PDF writer's objects start timers, and in a thread Qt only
        # adopted the event dispatcher was gone by then (9 "QBasicTimer::start" warnings per take-home)
        QThreadPool.globalInstance().start(work)

    def _finished(self, outcome: object) -> None:
        self.saving = False
        self.button.setText("Take this build home")
        self.button.setEnabled(True)
        self.show_outcome(outcome if isinstance(outcome, TakeHome | Exception) else RuntimeError(str(outcome)))
        self.done.emit(self.code_panel.code.text())
