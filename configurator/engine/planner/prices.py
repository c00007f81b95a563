"""Prices for the planner: the seller's price list (the build-sheet issue's file) and the plan's own entries.

The price-list file (YAML)::

    currency: EUR
    tax_rate: 0.19            # optional
    valid_days: 30            # optional
    parts: {h200-nvl: 31000, generic-server-8: 12500}   # catalog ids of cards, chassis, bridges
    services: [{name: Assembly and burn-in, price: 450}]

Only ``currency`` and ``parts`` matter to the planner (capital per node); services are one-off per quote,
not per node, so they are read and validated but not amortised. Prices are before tax: a service's capital
cost is what it pays, and tax it reclaims is not a cost (``tax_rate`` is kept for the sheet).
"""

from __future__ import annotations

import os

from pydantic import Field, field_validator

from configurator.catalog.errors import FileError, Problem
from configurator.catalog.sourced import Strict
from configurator.catalog.yamlio import parse_yaml, read_text, validate_as


class ServiceLine(Strict):
    name: str = Field(min_length=1, max_length=200)
    price: float = Field(ge=0)


class PriceList(Strict):
    currency: str = Field(min_length=1, max_length=8)
    tax_rate: float | None = Field(default=None, ge=0, le=1)
    valid_days: int | None = Field(default=None, ge=1, le=3650)
    parts: dict[str, float] = {}
    services: list[ServiceLine] = []

    @field_validator("parts")
    @classmethod
    def _non_negative(cls, parts: dict[str, float]) -> dict[str, float]:
        bad = sorted(k for k, v in parts.items() if not v >= 0)
        if bad:
            raise ValueError(f"prices must be 0 or more: {', '.join(bad)}")
        return parts


def parse_price_list(text: str, where: str) -> PriceList:
    data, lines = parse_yaml(text, where)
    if not isinstance(data, dict):
        msg = "empty file" if data is None else f"a {type(data).__name__} at the top level"
        raise FileError(
            where, [Problem("", f"{msg}: a price list is a YAML mapping with currency and parts", lines.get((), 1))]
        )
    return validate_as(PriceList, data, lines, where)


def load_price_list(path: str | os.PathLike[str]) -> PriceList:
    """Load and validate a price list; FileError with file, line and field on any problem."""
    return parse_price_list(read_text(path), str(path))
