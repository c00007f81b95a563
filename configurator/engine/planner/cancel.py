"""Stopping a plan part-way (the planner window's Stop): the caller passes ``cancel``, a function the engine asks
between steps (each class sized, every few thousand candidates scored, each ranked fleet's roadmap month); when it
answers True the engine raises :class:`PlanCancelled` and returns nothing, never a half-made result."""

from __future__ import annotations

from collections.abc import Callable

Cancel = Callable[[], bool]


class PlanCancelled(Exception):
    """The plan was stopped by its caller's ``cancel``; nothing was computed to use."""


def never() -> bool:
    """The default ``cancel``: a plan that is never stopped (the command line, the build sheet)."""
    return False


def check(cancel: Cancel) -> None:
    """Raise :class:`PlanCancelled` when ``cancel`` says the caller wants the plan stopped."""
    if cancel():
        raise PlanCancelled("the plan was stopped")


__all__ = ["Cancel", "PlanCancelled", "check", "never"]
