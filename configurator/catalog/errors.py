"""Errors for files the user or the catalog supplies: they say file, line, field and what is allowed.

Messages stay readable whatever the file holds: a field or message is cut to a few hundred characters,
a value is echoed by :func:`short_repr` (a 5,000-digit number is "a 5000-digit number"), and a file with
thousands of problems lists the first :data:`MAX_LISTED` and counts the rest.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

MAX_MESSAGE_CHARS = 300
MAX_FIELD_CHARS = 120
MAX_LISTED = 20


def shorten(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters (with how much was left out), control characters made visible."""
    text = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text[: limit * 2])
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def short_repr(value: Any, limit: int = 60) -> str:
    """A value as a message may echo it: never thousands of characters, never an error of its own."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        # digits from the bit length (log10 2), never str() of a huge int (Python refuses past 4,300 digits)
        digits = int((value.bit_length() - 1) * 0.30102999566398) + 1
        if abs(value) >= 10**digits:
            digits += 1
        return f"a {digits}-digit number"
    if isinstance(value, dict | list | tuple | set) and len(value) > 8:
        return f"a {type(value).__name__} of {len(value):,} items"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain_message(exc: BaseException) -> str:
    """A one-line reason for any error a user may see: a pydantic ValidationError as "field: what is wrong"
    (never "1 validation error for ModelSpec"), a FileError as its summary, anything else its first line."""
    errors = getattr(exc, "errors", None)
    if callable(errors) and type(exc).__name__ == "ValidationError":
        try:
            items = errors(include_url=False)
        except TypeError:
            items = errors()
        parts = []
        for err in items[:3]:
            where = ".".join(str(p) for p in err.get("loc", ()) if not str(p).startswith("function-"))
            msg = str(err.get("msg", "not valid")).removeprefix("Value error, ")
            parts.append(f"{where}: {msg}" if where else msg)
        more = f" (and {len(items) - 3} more)" if len(items) > 3 else ""
        return shorten("; ".join(parts) + more)
    if isinstance(exc, FileError):
        return exc.summary()
    text = str(exc).strip()
    return shorten(text.splitlines()[0] if text else type(exc).__name__)


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a file."""

    field: str  # dotted path, e.g. "jobs[0].method"
    message: str  # what is wrong and what is allowed
    line: int | None = None  # 1-based line in the file, when known
    # every value allowed, for a details view (the message names the closest few): a list of 40 ids in the
    # message itself was cut off in the window's message box
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "field", shorten(str(self.field), MAX_FIELD_CHARS))
        object.__setattr__(self, "message", shorten(str(self.message)))

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.field}: {self.message}" if self.field else f"{where}{self.message}"


@dataclass
class FileError(Exception):
    """A file that could not be loaded. Never leaves partial state behind."""

    path: str
    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.path = shorten(str(self.path), 500)

    def lines(self) -> list[str]:
        """One line per problem, the first :data:`MAX_LISTED` of them, then how many more."""
        out = [f"{self.path}{f':{p.line}' if p.line else ''}: {f'{p.field}: ' if p.field else ''}{p.message}"
               for p in self.problems[:MAX_LISTED]]  # fmt: skip
        if len(self.problems) > MAX_LISTED:
            out.append(f"… and {problems(len(self.problems) - MAX_LISTED, 'more ')}")
        return out

    def summary(self) -> str:
        """One line: the first problem with its file and line, and how many more there are."""
        if not self.problems:
            return f"{self.path}: cannot be read"
        more = f" (and {problems(len(self.problems) - 1, 'more ')})" if len(self.problems) > 1 else ""
        return self.lines()[0] + more

    def headline(self) -> str:
        """What is wrong and where, without the path (a message box gives it once, below): "Line 11,
        jobs[0].model: unknown model 'x'; did you mean y?" and how many more problems there are."""
        if not self.problems:
            return "The file cannot be read."
        first = self.problems[0]
        where = ", ".join(w for w in (f"Line {first.line}" if first.line else "", first.field) if w)
        text = f"{where}: {first.message}" if where else first.message[:1].upper() + first.message[1:]
        more = f" (and {problems(len(self.problems) - 1, 'more ')})" if len(self.problems) > 1 else ""
        return text + more

    def details(self) -> str:
        """Every problem listed (the first MAX_LISTED) with the full list of what each allows."""
        out: list[str] = []
        for p in self.problems[:MAX_LISTED]:
            out.append(str(p))
            if p.choices:
                out.append(f"  Allowed ({len(p.choices)}):")
                out += [f"    {c}" for c in p.choices]
        if len(self.problems) > MAX_LISTED:
            out.append(f"… and {problems(len(self.problems) - MAX_LISTED, 'more ')}")
        return "\n".join(out)

    def __str__(self) -> str:
        return "\n".join([f"{self.path}: {problems(len(self.problems))}", *(f"  {s}" for s in self.lines())])


def problems(n: int, adjective: str = "") -> str:
    """ "1 problem", "2 problems", "1 more problem" """
    return f"{n:,} {adjective}problem{'' if n == 1 else 's'}"


class UnknownIdError(KeyError):
    """A catalog id that does not exist; the message lists close matches."""

    def __init__(self, kind: str, wanted: str, known: list[str]) -> None:
        wanted = shorten(str(wanted), 80)
        super().__init__(unknown_words(kind, wanted, known))
        self.kind, self.wanted = kind, wanted

    def __str__(self) -> str:
        return str(self.args[0])


def close_ids(wanted: str, known: list[str]) -> list[str]:
    """Up to three ids near ``wanted``: difflib's closest (cutoff 0.4, looser than its 0.6, so a typo of a long id
    is still found), else the ids sharing a part with it, its size ('7b') or family ('llama'), closest first."""
    close = difflib.get_close_matches(wanted, known, n=3, cutoff=0.4)
    if close:
        return close
    parts = {p for p in wanted.lower().split("-") if any(ch.isdigit() for ch in p) or len(p) >= 5}
    sharing = [k for k in known if parts & set(k.lower().split("-"))]
    rank = {k: difflib.SequenceMatcher(None, wanted, k).ratio() for k in sharing}
    return sorted(sharing, key=lambda k: -rank[k])[:3]


TYPO_RATIO = 0.75  # difflib's similarity from which an unknown id reads as a typo of a known one


def typo_of(wanted: str, known: list[str]) -> str | None:
    """The id ``wanted`` is a typo of (the closest, at least TYPO_RATIO alike), or None: close_ids also names looser
    matches ('no-such-model-7b' -> qwen2.5-vl-7b, sharing '7b'), fit for a message, not to offer as the fix."""
    close = close_ids(wanted, known)
    if close and difflib.SequenceMatcher(None, wanted, close[0]).ratio() >= TYPO_RATIO:
        return close[0]
    return None


def unknown_words(kind: str, wanted: str, known: list[str]) -> str:
    """ "unknown model 'x'; did you mean y, z?": the closest ids, never the whole list (40 model ids were cut off
    at 'mi…' in the Checks list and the message box; a file's Problem carries them all as its choices)."""
    close = close_ids(wanted, known)
    hint = f"did you mean {', '.join(close)}?" if close else f"none of the {len(known)} known {kind} ids is close"
    return f"unknown {kind} '{wanted}'; {hint}"
