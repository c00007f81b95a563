"""The build a sheet carries: its code for the QR, and its YAML as the PDF's build.yaml attachment."""

from __future__ import annotations

import dataclasses
import os

from configurator.engine import Build
from configurator.engine.model.buildcode import CodeTooLarge, encode_build
from configurator.engine.model.buildfile import build_to_yaml
from configurator.report.sheet import SheetOptions

ATTACHMENT_NAME = "build.yaml"


def with_build_code(options: SheetOptions, build: Build) -> SheetOptions:
    """``options`` with the build's code for the QR; none (the attachment alone) when it is too long for one."""
    if options.build_code is not None:
        return options
    try:
        return dataclasses.replace(options, build_code=encode_build(build))
    except CodeTooLarge:
        return options


def attach_build(source: str, target: str, build: Build) -> None:
    """Copy the PDF ``source`` to ``target`` with the build YAML embedded as the file attachment build.yaml."""
    # start-up time: pypdf (about 65 ms) loads when a sheet is written, not as the window opens
    from pypdf import PdfReader, PdfWriter
    from pypdf.errors import PyPdfError

    try:
        writer = PdfWriter(clone_from=PdfReader(source))
        writer.add_attachment(ATTACHMENT_NAME, build_to_yaml(build).encode("utf-8"))
        with open(target, "wb") as fh:
            writer.write(fh)
            fh.flush()
            os.fsync(fh.fileno())
    except PyPdfError as exc:
        raise OSError(f"cannot attach the build to the PDF: {exc}") from None


def read_attached_build(path: str | os.PathLike[str]) -> str | None:
    """The build YAML a sheet carries as its build.yaml attachment, or None when it has none."""
    # start-up time: pypdf loads when a PDF is read (see attach_build)
    from pypdf import PdfReader

    files = PdfReader(str(path)).attachments.get(ATTACHMENT_NAME)
    return files[0].decode("utf-8") if files else None
