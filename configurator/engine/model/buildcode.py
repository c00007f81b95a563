"""A build as a short text code, for the QR on the build sheet and ``configurator open-code``.

``GBC1:`` followed by the build's YAML (as ``save_build`` writes it), zlib-compressed and written in
URL-safe base64 without padding (RFC 4648 §5), so the code survives a QR scanner, a URL or a shell
argument. The version in the prefix lets a later format change keep reading old sheets.

Decoding is the same strict path as opening a file: the YAML goes through ``parse_build``, so a code
can hold nothing a build file could not. Limits keep a hostile code small: the code text, and the YAML it
inflates to (a zip bomb stops at ``MAX_YAML_BYTES``).
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import zlib

from configurator.catalog.errors import FileError, Problem
from configurator.catalog.loader import Catalog
from configurator.engine.model.build import Build
from configurator.engine.model.buildfile import build_to_yaml, parse_build

PREFIX = "GBC1:"
# A version-40 QR at error correction level M holds 2,331 bytes (ISO/IEC 18004:2015, Table 7); level L
# 2,953. A code longer than this would need a QR too dense to scan from a printed sheet.
MAX_CODE_CHARS = 2331
MAX_YAML_BYTES = 200_000
WHERE = "build code"


class CodeTooLarge(ValueError):
    """The build's code would not fit one QR code."""


def encode_build(build: Build) -> str:
    """The build as ``GBC1:<base64url(zlib(yaml))>``; CodeTooLarge when it would not fit a QR code."""
    raw = zlib.compress(build_to_yaml(build).encode("utf-8"), 9)
    code = PREFIX + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
    if len(code) > MAX_CODE_CHARS:
        raise CodeTooLarge(
            f"this build's code is {len(code):,} characters; one QR code holds {MAX_CODE_CHARS:,} "
            "(fewer jobs or shorter names make it fit; the PDF attachment always holds the build)"
        )
    return code


def qr_modules(code: str) -> list[list[bool]]:
    """The QR code of ``code`` as rows of dark (True) and light modules, quiet zone of 4 included.

    segno (ISO/IEC 18004 encoder), error correction M: the version follows the length, up to 40. For the
    sheet (report.pdf.draw_qr) and any screen that shows the code (the kiosk). A fresh list each call (the
    caller may keep it); the encoding itself is kept per code.
    """
    return [list(row) for row in _qr_rows(code)]


@functools.lru_cache(maxsize=32)
def _qr_rows(code: str) -> tuple[tuple[bool, ...], ...]:
    """segno's encoding of ``code``: ~60 ms for a build's code (its mask choice scores all eight masks, ISO/IEC
    18004 §7.8.3), paid again on every export and kiosk scenario of an unchanged build before it was kept."""
    import segno  # imported on first use: only the sheet and the kiosk draw a QR code

    qr = segno.make(code, error="m", micro=False)
    return tuple(tuple(bool(v) for v in row) for row in qr.matrix_iter(border=4))


def decode_yaml(code: str) -> str:
    """The build YAML a code holds; FileError saying what is wrong with a corrupt or foreign code."""

    def fail(msg: str) -> FileError:
        return FileError(WHERE, [Problem("", msg)])

    text = re.sub(r"\s+", "", code or "")
    if not text:
        raise fail("empty code")
    if len(text) > MAX_CODE_CHARS + len(PREFIX):
        raise fail(f"code is {len(text):,} characters; a build code is at most {MAX_CODE_CHARS:,}")
    head, sep, body = text.partition(":")
    if not sep or not head.upper().startswith("GBC"):
        raise fail(f"not a build code: it starts {text[:12]!r}; a build code starts {PREFIX}")
    if head.upper() != PREFIX[:-1]:
        raise fail(f"a {head}: code is from a newer configurator (this one reads {PREFIX}); update to open it")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", body):
        raise fail("the code holds characters outside URL-safe base64 (A-Z a-z 0-9 - _): it was mistyped or cut")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise fail("the code's base64 is broken (cut short or mistyped)") from None
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(raw, MAX_YAML_BYTES)
    except zlib.error:
        raise fail("the code is damaged (its compressed data does not unpack): scan or copy it again") from None
    if inflater.unconsumed_tail:
        raise fail(f"the code unpacks to more than {MAX_YAML_BYTES:,} bytes: refusing it")
    if not inflater.eof:
        raise fail("the code is cut short (its compressed data ends early): scan or copy all of it")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise fail("the code does not hold UTF-8 text") from None


def decode_build(code: str, catalog: Catalog | None = None) -> Build:
    """The build a code holds, validated like a build file (FileError with the field on a bad one)."""
    return parse_build(decode_yaml(code), WHERE, catalog)
