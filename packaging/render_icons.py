"""Render the freedesktop icon theme sizes from resources/icons/configurator.svg.

    .venv/bin/python packaging/render_icons.py

Writes resources/icons/hicolor/<N>x<N>/apps/io.github.gpu_configurator.png for each size, and a copy
of the SVG as hicolor/scalable/apps/io.github.gpu_configurator.svg. Run it again after editing the SVG;
the PNGs are committed so a build needs no Qt to lay out the icon theme.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

APP_ID = "io.github.gpu_configurator"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "resources" / "icons" / "configurator.svg"
THEME = ROOT / "resources" / "icons" / "hicolor"


def render(source: Path = SOURCE, theme: Path = THEME, sizes: tuple[int, ...] = SIZES) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # QPainter on QImage needs fonts set up
    renderer = QSvgRenderer(str(source))
    if not renderer.isValid():
        raise SystemExit(f"error: cannot read {source} as SVG")
    written = []
    for n in sizes:
        image = QImage(n, n, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter, QRectF(0, 0, n, n))
        painter.end()
        target = theme / f"{n}x{n}" / "apps" / f"{APP_ID}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.convertToFormat(QImage.Format.Format_ARGB32).save(str(target), "PNG"):
            raise SystemExit(f"error: cannot write {target}")
        written.append(target)
    scalable = theme / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, scalable)
    written.append(scalable)
    return written


if __name__ == "__main__":
    for path in render():
        print(path.relative_to(ROOT))
