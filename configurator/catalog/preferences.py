"""Validation of stored preferences (Qt-free): a value a settings file holds that the program cannot use
(``units=MB``, ``autosave_seconds=-4``, a 10,000-entry recent list) falls back to its default with a
warning, so a bad settings file never stops the window from starting.
"""

from __future__ import annotations

from typing import Any

from configurator.catalog.errors import short_repr

# key -> allowed values (a set), an inclusive (low, high) range for numbers, or a maximum length for text
RULES: dict[str, set[str] | tuple[int, int] | int] = {
    "units": {"GB", "GiB"},
    "theme": {"light", "dark"},
    "page": {"", "a4", "letter"},
    "autosave_seconds": (5, 3600),
    "seller_name": 200,
    "seller_logo": 4096,
    "last_folder": 4096,
}
MAX_RECENT = 10


def validate_preference(key: str, value: Any, default: Any) -> tuple[Any, str | None]:
    """(the value to use, a warning or None). Unknown keys keep their value; bad values give the default."""
    rule = RULES.get(key)

    def fallback(why: str) -> tuple[Any, str]:
        return default, f"preference {key}={short_repr(value)} {why}; using the default {default!r}"

    if isinstance(default, list):
        if value in (None, ""):
            return [], None
        items = list(value) if isinstance(value, list | tuple) else [value]
        good = [str(v) for v in items if isinstance(v, str) and 0 < len(v) <= 4096][:MAX_RECENT]
        return good, None if len(good) == len(items) else f"preference {key}: dropped {len(items) - len(good)} entries"
    if isinstance(rule, set):
        return (value, None) if isinstance(value, str) and value in rule else fallback(
            f"is not one of {', '.join(repr(r) for r in sorted(rule))}")  # fmt: skip
    if isinstance(rule, tuple):
        try:
            number = int(str(value).strip()) if not isinstance(value, bool) else None
        except (TypeError, ValueError):
            number = None
        if number is None or not rule[0] <= number <= rule[1]:
            return fallback(f"is not a whole number from {rule[0]} to {rule[1]}")
        return number, None
    if isinstance(rule, int):
        if not isinstance(value, str) or len(value) > rule or "\x00" in value:
            return fallback(f"is not text of at most {rule} characters")
        return value, None
    return value, None
