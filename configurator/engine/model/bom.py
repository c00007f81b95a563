"""The bill of materials of a build, priced from a seller's price list.

Quantities come from the build (cards by catalog id, the chassis, NVLink bridges by size); prices from
the seller's list (configurator.catalog.prices), exact decimals rounded to the currency's minor unit only
where a figure is shown or summed. A part the list has no price for stays a line with ``unit_price=None``
and makes the total incomplete: the total never quietly leaves a part out.
"""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

from pydantic import BaseModel

from configurator.catalog.loader import Catalog
from configurator.catalog.prices import PriceList, bridge_part_ids
from configurator.engine.model.build import Build
from configurator.engine.model.result import HostResult

# ISO 4217 minor units and how a price is written in that currency (symbol, before or after the amount).
# A small table rather than babel: the sheet needs a dozen currencies written one fixed way, not a locale
# database (babel's CLDR data is ~30 MB for what these lines do). Others print as "1,234.00 XYZ".
CURRENCIES: dict[str, tuple[str, bool, int]] = {
    # code: (symbol, symbol before the amount, decimals)
    "EUR": ("€", False, 2),
    "USD": ("$", True, 2),
    "GBP": ("£", True, 2),
    "CHF": ("CHF", True, 2),
    "CAD": ("CA$", True, 2),
    "AUD": ("A$", True, 2),
    "JPY": ("¥", True, 0),
    "CNY": ("CN¥", True, 2),
    "KRW": ("₩", True, 0),
    "INR": ("₹", True, 2),
    "SEK": ("kr", False, 2),
    "NOK": ("kr", False, 2),
    "DKK": ("kr.", False, 2),
    "PLN": ("zł", False, 2),
    "CZK": ("Kč", False, 2),
}


def minor_units(currency: str) -> int:
    return CURRENCIES.get(currency, ("", False, 2))[2]


def money(amount: Decimal, currency: str) -> str:
    """``€`` after, ``$``/``£`` before; thousands with commas, the currency's decimals: 31,000.00 €, $1,440.00."""
    symbol, before, decimals = CURRENCIES.get(currency, (currency, False, 2))
    number = f"{round_money(amount, currency):,.{decimals}f}"
    if amount < 0:
        number = number.lstrip("-")
        sign = "-"
    else:
        sign = ""
    gap = " " if symbol[-1].isalpha() else ""  # CHF 1,234.00, but $1,234.00
    return f"{sign}{symbol}{gap}{number}" if before else f"{sign}{number} {symbol}"


def round_money(amount: Decimal, currency: str) -> Decimal:
    return amount.quantize(Decimal(1).scaleb(-minor_units(currency)), rounding=ROUND_HALF_UP)


class BomLine(BaseModel):
    kind: str  # card | chassis | bridge | dimm | drive | service
    part_id: str | None  # catalog or price-list id; None for a service
    description: str
    quantity: int
    unit_price: Decimal | None  # None: the price list has no price for this part
    line_total: Decimal | None


class BillOfMaterials(BaseModel):
    currency: str
    lines: list[BomLine]
    subtotal: Decimal  # net, over the priced lines only
    tax_rate: Decimal | None
    tax: Decimal | None
    total: Decimal  # subtotal + tax
    unpriced: list[str]  # descriptions of the lines without a price: the total leaves them out
    quote_number: str
    date: dt.date
    valid_until: dt.date | None

    @property
    def complete(self) -> bool:
        return not self.unpriced


def bill_of_materials(build: Build, catalog: Catalog, prices: PriceList, quote_number: str,
                      date: dt.date, host: HostResult | None = None) -> BillOfMaterials:  # fmt: skip
    """The build's lines priced from ``prices``. ``host``: the evaluated host (``BuildResult.host``), whose DIMMs and
    drives (stated in the build, or picked to hold the jobs' need) become lines priced as ``dimm-<n>gb`` and
    ``nvme-<n>tb``; None leaves them out."""
    cur = prices.currency
    lines: list[BomLine] = []

    def add(kind: str, part_id: str | None, description: str, qty: int, unit: Decimal | None) -> None:
        total = round_money(unit * qty, cur) if unit is not None else None
        lines.append(BomLine(kind=kind, part_id=part_id, description=description, quantity=qty,
                             unit_price=unit, line_total=total))  # fmt: skip

    chassis = catalog.chassis.get(build.chassis)
    add("chassis", build.chassis, chassis.name if chassis else build.chassis, 1, prices.part_price(build.chassis))
    counts: dict[str, int] = {}
    for c in build.cards:
        counts[c.card] = counts.get(c.card, 0) + 1
    for card_id, qty in counts.items():
        card = catalog.cards.get(card_id)
        add("card", card_id, card.name if card else card_id, qty, prices.part_price(card_id))
    bridges: dict[tuple[str, int], int] = {}
    slots = {c.slot: c.card for c in build.cards}
    for b in build.bridges:
        key = (slots.get(b.slots[0], "unknown"), len(b.slots))
        bridges[key] = bridges.get(key, 0) + 1
    for (card_id, n), qty in bridges.items():
        specific, generic = bridge_part_ids(card_id, n)
        price_id = specific if specific in prices.parts else generic
        card = catalog.cards.get(card_id)
        what = f"NVLink bridge, {n}-way, for {card.name if card else card_id}"
        add("bridge", price_id, what, qty, prices.part_price(specific, generic))
    for part in (host.dimms, host.drives) if host is not None else ():
        if part is not None:
            add(part.kind, part.part_id, part.description, part.count, prices.part_price(part.part_id))
    for s in prices.services:
        add("service", None, s.name, s.quantity, s.price)
    subtotal = sum((ln.line_total for ln in lines if ln.line_total is not None), Decimal(0))
    tax = round_money(subtotal * prices.tax_rate, cur) if prices.tax_rate is not None else None
    valid = date + dt.timedelta(days=prices.valid_days) if prices.valid_days else None
    unpriced = [ln.description for ln in lines if ln.unit_price is None]
    return BillOfMaterials(
        currency=cur, lines=lines, subtotal=round_money(subtotal, cur), tax_rate=prices.tax_rate, tax=tax,
        total=round_money(subtotal + (tax or 0), cur), unpriced=unpriced, quote_number=quote_number, date=date,
        valid_until=valid,
    )  # fmt: skip
