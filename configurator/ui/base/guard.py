"""The crash guard: an exception in a Qt slot or an undo command shows a message and keeps the document.

PySide6 hands an exception escaping a slot or a virtual (``QUndoCommand.redo``) to ``sys.excepthook``;
the default prints a traceback and, for some call paths, the application aborts. Here the hook logs the
traceback (for the developer) and shows one error dialog (for the user), and ``guarded`` wraps the places
where a half-done step must not escape at all: the undo commands' redo()/undo().
"""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from collections.abc import Callable, Iterator
from functools import wraps
from types import TracebackType
from typing import Any, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])

#: the last errors reported (newest last, at most 20): what the dialog showed, for tests and the log
reported: list[str] = []


def report(context: str, exc: BaseException) -> None:
    """Log the traceback and show a non-modal error dialog; never raises."""
    text = f"{context}: {type(exc).__name__}: {exc}"
    reported.append(text)
    del reported[:-20]
    log.error("%s\n%s", text, "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    try:
        if QApplication.instance() is None:
            return
        box = QMessageBox(QMessageBox.Icon.Critical, "Something went wrong",
                          f"{context} failed: {exc}\n\nYour build is kept as it was; save it, and please "
                          "report this with the log.", QMessageBox.StandardButton.Ok)  # fmt: skip
        box.setTextFormat(Qt.TextFormat.PlainText)  # the message may hold user text
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setModal(False)
        box.show()  # non-blocking: the event loop (and the document) go on
    except Exception:
        log.exception("could not show the error dialog")


@contextlib.contextmanager
def guarded(context: str) -> Iterator[None]:
    """Run a block; an exception in it is reported, not raised."""
    try:
        yield
    except Exception as exc:
        report(context, exc)


def guard_slot(fn: F) -> F:
    """Decorator for a slot: an exception is reported and the slot returns None."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            report(getattr(fn, "__name__", "An action"), exc)
            return None

    return wrapper  # type: ignore[return-value]


def _hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, exc, tb)
        return
    report("An action", exc.with_traceback(tb))


def install_excepthook() -> None:
    """Route uncaught exceptions (Qt slots included) to :func:`report` instead of aborting."""
    sys.excepthook = _hook
