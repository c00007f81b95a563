"""``--screenshot FILE.png``: the target checked before anything is drawn, the image written through the
one safe writer (``catalog.fileio.atomic_replace``: a temporary file beside the target, verified, renamed
over it), so a swapped argument (``--screenshot mybuild.yaml``), a FIFO or a device never loses a file or
hangs the program."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget

from configurator.catalog.errors import FileError, Problem
from configurator.catalog.fileio import atomic_replace, check_image_target, image_problem


def save_image(image: QImage, path: str | os.PathLike[str]) -> Path:
    """Write ``image`` to ``path`` all-or-nothing; FileError (never a bare False) when it cannot be."""
    target, fmt = check_image_target(path)
    if image.isNull():
        raise FileError(str(target), [Problem("", "nothing was drawn (the window has no size): no image written")])

    def produce(tmp: Path) -> None:
        # PySide6's stub types the char* format as bytes; a str is what PySide6 takes and passes on
        if not image.save(str(tmp), fmt):  # type: ignore[call-overload]
            raise OSError(f"Qt could not encode the {fmt} image")

    atomic_replace(target, produce, lambda tmp: image_problem(tmp, fmt), what="the screenshot")
    return target


def save_screenshot(widget: QWidget, path: str | os.PathLike[str]) -> Path:
    """The widget as shown, written as an image to ``path`` (see :func:`save_image`)."""
    return save_image(widget.grab().toImage(), path)


def write_screenshot(widget: QWidget, path: str | os.PathLike[str]) -> int:
    """``--screenshot``'s last step for the editor, the demo and the planner: write ``widget``'s image, print
    "wrote PATH (WxH)" and return 0, or print the reason on stderr and return 2."""
    try:
        save_screenshot(widget, path)
    except FileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    size = widget.size()
    print(f"wrote {path} ({size.width()}x{size.height()})")
    return 0
