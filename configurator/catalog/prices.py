"""A seller's price list: what the shop charges for catalog parts and for its services.

Never shipped with prices: the seller writes one (Preferences names it, ``configurator export --prices``
reads it, the service planner reads the same file through :func:`load_price_list`). YAML::

    currency: EUR
    tax_rate: 0.19            # optional: sales tax / VAT as a fraction, added to the net total
    valid_days: 30            # optional: how long a quote from this list holds
    parts: {h200-nvl: 31000, generic-server-8: 12500}   # catalog ids of cards, chassis and bridges
    services: [{name: Assembly and burn-in, price: 450}]

or CSV with the same keys as two columns, ``field,value`` (a header row, then one row per key; parts as
``parts.<id>``, services as ``services.<name>``)::

    field,value
    currency,EUR
    tax_rate,0.19
    parts.h200-nvl,31000
    services.Assembly and burn-in,450

NVLink bridges have no catalog entry of their own; they are priced as ``nvlink-bridge-<card id>-<n>way``
(``nvlink-bridge-h200-nvl-2way``) or, for any card, ``nvlink-bridge-<n>way``; the host's memory and drives by
size, ``dimm-<GB>gb`` (``dimm-64gb``, the size as DIMMs are labelled) and ``nvme-<TB>tb`` (``nvme-7.68tb``).
Prices are net of tax, in the list's currency, kept as exact decimals.
"""

from __future__ import annotations

import csv
import difflib
import io
import os
import re
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from configurator.catalog.currencies import check_currency
from configurator.catalog.errors import FileError, Problem
from configurator.catalog.fileio import safe_read_text
from configurator.catalog.limits import MAX_CSV_FIELD_CHARS, MAX_PRICE_LIST_BYTES, MAX_PRICE_PARTS, MAX_PRICE_SERVICES
from configurator.catalog.loader import default_catalog
from configurator.catalog.sourced import Strict
from configurator.catalog.yamlio import line_for, parse_yaml, validate_as

MAX_PRICE = Decimal("1e9")
BRIDGE_ID = re.compile(r"^nvlink-bridge-(?:(?P<card>[a-z0-9][a-z0-9.-]*)-)?(?P<n>[2-8])way$")
# host parts have no catalog entry either: a DIMM by its size (dimm-64gb), an NVMe drive by its capacity (nvme-7.68tb)
HOST_PART_ID = re.compile(r"^(?:dimm-[1-9][0-9]*gb|nvme-(?:0|[1-9][0-9]*)(?:\.[0-9]+)?tb)$")


def bridge_part_ids(card_id: str, cards: int) -> tuple[str, str]:
    """The price-list ids a bridge joining ``cards`` cards of ``card_id`` is looked up under, most specific first."""
    return f"nvlink-bridge-{card_id}-{cards}way", f"nvlink-bridge-{cards}way"


def _plain_zero(price: Decimal) -> Decimal:
    """-0 (a typed ``-0.0``) as 0: it would print as "-0.00 €"."""
    return price.copy_abs() if price == 0 else price


class ServiceLine(Strict):
    name: str = Field(min_length=1, max_length=200)
    price: Decimal = Field(ge=0, le=MAX_PRICE, allow_inf_nan=False)
    quantity: int = Field(default=1, ge=1, le=10_000)

    @field_validator("price")
    @classmethod
    def _no_negative_zero(cls, price: Decimal) -> Decimal:
        return _plain_zero(price)


class PriceList(Strict):
    currency: str
    tax_rate: Decimal | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    valid_days: int | None = Field(default=None, ge=1, le=3650)
    parts: dict[str, Decimal] = Field(default={}, max_length=MAX_PRICE_PARTS)
    services: list[ServiceLine] = Field(default=[], max_length=MAX_PRICE_SERVICES)

    @field_validator("currency", mode="before")
    @classmethod
    def _iso_code(cls, value: object) -> object:
        return check_currency(value)  # the ISO 4217 list (data), not a pattern: XYZ and NaN are refused

    @field_validator("parts")
    @classmethod
    def _prices_in_range(cls, parts: dict[str, Decimal]) -> dict[str, Decimal]:
        for key, price in parts.items():
            if not price.is_finite() or not 0 <= price <= MAX_PRICE:
                raise ValueError(f"price of '{key}' must be a number between 0 and {MAX_PRICE:,.0f}")
        return {key: _plain_zero(price) for key, price in parts.items()}

    def part_price(self, *ids: str) -> Decimal | None:
        """The price of the first of ``ids`` the list has, or None when it has none of them."""
        for i in ids:
            if i in self.parts:
                return self.parts[i]
        return None


def _unknown_ids(prices: PriceList, lines: Mapping[tuple[Any, ...], int], known: set[str]) -> list[Problem]:
    out = []
    for key in prices.parts:
        m = BRIDGE_ID.match(key)
        if key in known or (m and (m["card"] is None or m["card"] in known)) or HOST_PART_ID.match(key):
            continue
        close = difflib.get_close_matches(key, sorted(known), n=3)
        hint = f"did you mean {', '.join(close)}?" if close else "use catalog ids of cards and chassis"
        out.append(Problem(f"parts.{key}", f"unknown part '{key}'; {hint} (bridges: nvlink-bridge-<card>-<n>way; "
                           "DIMMs: dimm-<size>gb; drives: nvme-<size>tb)",
                           line_for(("parts", key), lines)))  # fmt: skip
    return out


def _csv_data(text: str, where: str) -> tuple[dict[str, Any], dict[tuple[Any, ...], int]]:
    """A ``field,value`` CSV as the same mapping (and key lines) a YAML price list gives."""
    data: dict[str, Any] = {}
    lines: dict[tuple[Any, ...], int] = {}
    problems: list[Problem] = []
    # CR-only line ends (Excel for Mac) and CRLF read as LF: the csv module raised "new-line character seen in
    # unquoted field" on a CR it was not given as a line end
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    reader = csv.reader(io.StringIO(text))
    header_seen = False
    rows = iter(reader)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as exc:  # a field over the module's 131,072 characters, a NUL, a bad quote
            problems.append(Problem("", f"not a readable CSV row ({exc})", max(reader.line_num, 1)))
            break
        line = reader.line_num
        long = next((c for c in row if len(c) > MAX_CSV_FIELD_CHARS), None)
        if long is not None:
            problems.append(Problem("", f"a field of {len(long):,} characters: at most {MAX_CSV_FIELD_CHARS:,}", line))
            break
        if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in row]
        if not header_seen:
            header_seen = True
            if [c.lower() for c in cells[:2]] != ["field", "value"]:
                problems.append(Problem("", f"the first row must be the header 'field,value', not {row!r}", line))
                break
            continue
        if len(cells) != 2:
            problems.append(Problem("", f"expected 2 columns (field,value), found {len(cells)}", line))
            continue
        key, value = cells
        head, _, rest = key.partition(".")
        if head == "parts" and rest:
            if rest in data.setdefault("parts", {}):
                problems.append(Problem(key, "listed twice", line))
            data["parts"][rest] = value
            lines[("parts", rest)] = line
        elif head == "services" and rest:
            services = data.setdefault("services", [])
            lines[("services", len(services))] = lines[("services", len(services), "price")] = line
            services.append({"name": rest, "price": value})
        elif key in {"currency", "tax_rate", "valid_days"}:
            if key in data:
                problems.append(Problem(key, "listed twice", line))
            data[key] = value
            lines[(key,)] = line
        else:
            problems.append(Problem(key, "unknown field; use currency, tax_rate, valid_days, parts.<id> or "
                                    "services.<name>", line))  # fmt: skip
    if problems:
        raise FileError(where, problems)
    if not header_seen:
        raise FileError(where, [Problem("", "empty file: a price list needs at least a currency")])
    return data, lines


def parse_price_list(text: str, where: str, known_ids: set[str] | None = None, fmt: str = "yaml") -> PriceList:
    """A price list from YAML (``fmt="yaml"``) or CSV text; FileError with file, line and field on any problem.

    ``known_ids``: the catalog's card and chassis ids; a part the catalog does not have is an error.
    """
    lines: Mapping[tuple[Any, ...], int]
    if fmt == "csv":
        data, lines = _csv_data(text, where)
    else:
        data, lines = parse_yaml(text, where)
        if not isinstance(data, dict):
            msg = "empty file" if data is None else f"a {type(data).__name__} at the top level"
            raise FileError(where, [Problem("", f"{msg}: a price list is a YAML mapping with currency, parts and "
                                            "services", lines.get((), 1))])  # fmt: skip
        # YAML floats to Decimal through their text, so 0.1 stays 0.1 (never 0.1000000000000000055...)
        data = _decimal_text(data)
    prices = validate_as(PriceList, data, lines, where)
    if known_ids is not None:
        problems = _unknown_ids(prices, lines, known_ids)
        if problems:
            raise FileError(where, problems)
    return prices


def _decimal_text(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return {k: _decimal_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decimal_text(v) for v in value]
    return value


def load_price_list(path: str | os.PathLike[str], known_ids: set[str] | None = None) -> PriceList:
    """Read a price list file (``.csv`` as CSV, anything else as YAML).

    With no ``known_ids``, the shipped catalog's card and chassis ids are the parts allowed.
    """
    if known_ids is None:
        cat = default_catalog()
        known_ids = set(cat.cards) | set(cat.chassis)
    p = Path(path)
    fmt = "csv" if p.suffix.lower() == ".csv" else "yaml"
    return parse_price_list(safe_read_text(p, MAX_PRICE_LIST_BYTES), str(p), known_ids, fmt)
