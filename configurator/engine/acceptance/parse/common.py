"""What every parser shares: the error type, text clean-up, PCI bus id normalisation and the kit's own JSON."""

from __future__ import annotations

import json
import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

MAX_LINES = 200_000  # a real topo / lspci -vv / nccl-tests output is well under 20,000 lines
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_BUS = re.compile(r"^(?:(?P<dom>[0-9a-fA-F]{4,8}):)?(?P<bus>[0-9a-fA-F]{2}):(?P<dev>[0-9a-fA-F]{2})\.(?P<fn>[0-7])$")


class ParseError(ValueError):
    """Input a parser cannot use, with a sentence that says what was expected."""


def clean_text(text: str, what: str) -> list[str]:
    """The lines of ``text`` without ANSI colour codes, NUL bytes or CR; ParseError when empty or huge."""
    if not isinstance(text, str):
        raise ParseError(f"{what}: expected text, got {type(text).__name__}")
    text = _ANSI.sub("", text.replace("\x00", "")).replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        raise ParseError(f"{what}: {len(lines):,} lines is more than any real output ({MAX_LINES:,} at most)")
    if not text.strip():
        raise ParseError(f"{what}: the file is empty")
    return lines


def bus_id(text: str) -> str | None:
    """A PCI address as ``dddd:bb:dd.f`` (lower case, 4-digit domain), from lspci's ``41:00.0``, nvidia-smi's
    ``00000000:41:00.0`` or nccl-tests' ``[0x41]``; None when ``text`` is not one."""
    t = text.strip().strip("[]")
    if t.lower().startswith("0x") and 3 <= len(t) <= 4:
        try:
            return f"0000:{int(t, 16):02x}:00.0"
        except ValueError:
            return None
    m = _BUS.match(t)
    if not m:
        return None
    dom = int(m.group("dom") or "0", 16)
    return f"{dom:04x}:{m.group('bus').lower()}:{m.group('dev').lower()}.{m.group('fn')}"


def number(text: str) -> float | None:
    """A float from a field such as ``600.00 W``, ``143771 MiB``, ``16x``; None for [N/A], [Not Supported]."""
    m = re.match(r"^\s*(-?\d{1,15}(?:\.\d{1,12})?)", text)
    return float(m.group(1)) if m else None


def tool_json(text: str, what: str, tool: str, not_ours: str, model: type[M]) -> M:
    """The JSON one of the kit's own scripts printed (its ``"tool"`` tag ``tool``) as ``model``; ParseError with a
    sentence when it is not JSON or cut off, another program's (``not_ours`` says whose it should be), or has a
    field out of range."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError (a cut-off file), a 100,000-digit number
        raise ParseError(f"{what}: not JSON, or cut off ({str(exc)[:120]})") from None
    if not isinstance(data, dict) or data.get("tool") != tool:
        raise ParseError(f'{what}: not written by {not_ours} (no "tool": "{tool}")')
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ParseError(f"{what}: {where}: {first['msg']} ({exc.error_count()} problem(s))") from None
