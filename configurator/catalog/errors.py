"""Errors for files the user or the catalog supplies: they say file, line, field and what is allowed."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a file."""

    field: str  # dotted path, e.g. "jobs[0].method"
    message: str  # what is wrong and what is allowed
    line: int | None = None  # 1-based line in the file, when known

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.field}: {self.message}" if self.field else f"{where}{self.message}"


@dataclass
class FileError(Exception):
    """A file that could not be loaded. Never leaves partial state behind."""

    path: str
    problems: list[Problem] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"{self.path}: {len(self.problems)} problem(s)"]
        lines += [f"  {self.path}:{p.line or '?'}: {p.field or '(file)'}: {p.message}" for p in self.problems]
        return "\n".join(lines)


class UnknownIdError(KeyError):
    """A catalog id that does not exist; the message lists close matches."""

    def __init__(self, kind: str, wanted: str, known: list[str]) -> None:
        import difflib

        close = difflib.get_close_matches(wanted, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(sorted(known))}"
        super().__init__(f"unknown {kind} '{wanted}'{hint}")
        self.kind, self.wanted = kind, wanted

    def __str__(self) -> str:
        return str(self.args[0])
