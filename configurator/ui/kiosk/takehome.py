"""Take this build home: the shop-local code, the demo folder, the code panel, the window's save."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from pathlib import Path

from PySide6.QtCore import (
    QStandardPaths,
    Qt,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from configurator.engine import Build
from configurator.engine.buildfile import build_to_yaml, save_build
from configurator.ui.kiosk.scenarios import ACCENT, CODE_ALPHABET, CODE_LENGTH, MUTED
from configurator.ui.kiosk.widgets import Overlay, _font
from configurator.ui.settings import Settings

# ---- take-home codes ------------------------------------------------------------------------------------


def demo_code(build: Build, date: dt.date, salt: int = 0) -> str:
    """Six characters from the build's content and the day (its build-sheet reference number)."""
    from configurator.report.sheet import reference_number

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
    """'Give this code to our staff: K7Q2MX'."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self.panel)
        layout.setContentsMargins(64, 40, 64, 40)
        layout.setSpacing(18)
        self.title = QLabel("Your build is saved")
        self.title.setFont(_font(30, True))
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.title)
        self.prompt = QLabel("Give this code to our staff:")
        self.prompt.setFont(_font(26))
        self.prompt.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.prompt)
        self.code = QLabel("")
        code_font = QFont("DejaVu Sans Mono")
        code_font.setStyleHint(QFont.StyleHint.Monospace)
        code_font.setPointSizeF(96)
        code_font.setBold(True)
        code_font.setLetterSpacing(QFont.SpacingType.AbsoluteSpacing, 12)
        self.code.setFont(code_font)
        self.code.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.code.setStyleSheet(f"color: {ACCENT};")
        self.code.setAccessibleName("Demo code")
        layout.addWidget(self.code)
        self.note = QLabel("They will open your build and send you its build sheet.")
        self.note.setFont(_font(20))
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setStyleSheet(f"color: {MUTED};")
        layout.addWidget(self.note)
        self.done = QPushButton("Done")
        self.done.setFont(_font(24, True))
        self.done.setMinimumHeight(88)
        self.done.setObjectName("primary")
        self.done.clicked.connect(self.hide)
        layout.addWidget(self.done)

    def show_code(self, code: str) -> None:
        self.title.setText("Your build is saved")
        self.prompt.setText("Give this code to our staff:")
        self.code.setText(code)
        self.code.show()
        self.note.setText("They will open your build and send you its build sheet.")
        self.cover()

    def show_failure(self, reason: str) -> None:
        self.title.setText("Sorry, the build could not be saved")
        self.prompt.setText("Please ask our staff for help.")
        self.code.setText("")
        self.code.hide()
        self.note.setText(reason)
        self.cover()


class TakeHomeMixin:
    """DemoWindow's take-home button."""

    # ---- take home ----
    def take_home(self) -> str:
        """Write <CODE>.pdf and <CODE>.yaml into the demo folder; show and return the code ('' on failure)."""
        from configurator.catalog.errors import FileError
        from configurator.report.pdf import default_page, export_pdf
        from configurator.report.sheet import SheetOptions

        if self._saving:
            return ""
        self._saving = True
        try:
            build, result = self.doc.build, self.doc.result
            folder = demo_folder(self.settings)
            today = dt.date.today()
            try:
                folder.mkdir(parents=True, exist_ok=True)
                text = build_to_yaml(build)
                salt = 0
                code = demo_code(build, today)
                while (folder / f"{code}.yaml").is_file() and (folder / f"{code}.yaml").read_text("utf-8") != text:
                    salt += 1
                    code = demo_code(build, today, salt)
                options = SheetOptions(
                    seller_name=str(self.settings.get("seller_name") or SheetOptions.seller_name),
                    seller_logo=str(self.settings.get("seller_logo") or "") or None,
                    page=str(self.settings.get("page") or "") or default_page(),
                    date=today,
                )
                export_pdf(folder / f"{code}.pdf", build, result, self.catalog, options)
                save_build(build, folder / f"{code}.yaml")
            except (FileError, OSError) as exc:
                self.code_panel.show_failure(str(exc))
                return ""
            self.code_panel.show_code(code)
            return code
        finally:
            self._saving = False

    def _take_home_clicked(self) -> None:
        self.take_home_button.setEnabled(False)
        self.take_home_button.setText("Preparing your build sheet…")
        self.take_home_button.repaint()
        try:
            self.take_home()
        finally:
            self.take_home_button.setText("Take this build home")
            self.take_home_button.setEnabled(True)
