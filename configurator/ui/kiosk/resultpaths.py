"""Dotted paths into the result models ('communication.seconds_per_step', 'totals.nodes'), checked when the
scenarios load so a misspelt or renamed field fails the load, not the stand."""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel


def model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (``Compute | None`` -> Compute, ``list[Route]`` -> Route), else None."""
    for t in (annotation, *typing.get_args(annotation)):
        if isinstance(t, type) and issubclass(t, BaseModel):
            return t
    return None


def check_path(model: type[BaseModel], path: str) -> None:
    """``path`` names a field in ``model``; ValueError naming the part that does not."""
    here: type[BaseModel] | None = model
    for part in path.split("."):
        if here is None or part not in here.model_fields:
            known = sorted(here.model_fields) if here is not None else []
            raise ValueError(f"'{path}': no '{part}' in {here.__name__ if here else 'a number'} (one of {known})")
        here = model_in(here.model_fields[part].annotation)
