"""ISO 4217 currency codes as data (``resources/currencies/iso4217.yaml``), not a pattern: ``XYZ`` and
``NaN`` are three letters but no currency, and a quote must never read "62,000.00 NAN"."""

from __future__ import annotations

import difflib
from functools import lru_cache

from configurator.catalog.errors import short_repr
from configurator.catalog.yamlio import parse_yaml, read_text
from configurator.paths import resource


@lru_cache(maxsize=1)
def iso_codes() -> frozenset[str]:
    path = resource("currencies", "iso4217.yaml")
    data = parse_yaml(read_text(path), str(path))[0]
    return frozenset(str(c) for c in data["codes"])


def check_currency(value: object) -> str:
    """The ISO 4217 code ``value`` names (spaces trimmed, upper case); ValueError with the closest codes."""
    text = value.strip().upper() if isinstance(value, str) else None
    codes = iso_codes()
    if text is not None and text in codes:
        return text
    close = difflib.get_close_matches(text or "", sorted(codes), n=3) if text and len(text) <= 8 else []
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    shown = short_repr(value, 24)
    raise ValueError(f"{shown} is not a currency: give its three-letter ISO 4217 code such as EUR, USD or GBP{hint}")
