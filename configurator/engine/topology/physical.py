"""Physical checks: slots, widths, lengths, cooling, SXM sockets, bridges and the PSU budget."""

from __future__ import annotations

import itertools

from configurator.catalog.cards import CardSpec
from configurator.catalog.chassis import ChassisSpec, SlotPosition
from configurator.engine.model.build import Build
from configurator.engine.model.result import Check, Power, WallCircuitDraw
from configurator.engine.model.wall import PSU_EFFICIENCY, wall_draw
from configurator.engine.topology.links import board_card

# PCIe CEM 5.0 lets a card draw up to 3x its sustained power for 100 us (Intel's Stephen Eastman via
# TweakTown, chassis-power.md §2.2); an ATX 3.x PSU must carry 200 % of its rating for 100 us (Intel
# ATX12VO design guide, table 3-3). Server PSU excursion ratings are unpublished: no allowance assumed.
CARD_EXCURSION = 3.0
ATX3_PSU_EXCURSION = 2.0
PSU_TIGHT_FRACTION = 0.9


def card_power_w(card: CardSpec, limit: float | None) -> float:
    return limit if limit is not None else (card.power.tdp_w.value or card.power.max_w.value or 0.0)


def card_span(card: CardSpec, x: int) -> range:
    width = int(card.form_factor.slot_width.value or 0) if card.form_factor.kind == "pcie" else 1
    return range(x, x + max(width, 1))


def slot_width(card: CardSpec) -> int:
    return int(card.form_factor.slot_width.value or 0)


def fit_problems(card: CardSpec, chassis: ChassisSpec, pos: SlotPosition) -> list[str]:
    """Codes of the rules that keep ``card`` out of position ``pos`` (empty when it fits there).

    One rule set for the checks on a build and for refusing a drop in the window (editing.check_place).
    """
    if card.form_factor.kind == "sxm" and pos.kind != "sxm":
        return ["SXM_IN_PCIE_SLOT"]
    if card.form_factor.kind == "pcie" and pos.kind == "sxm":
        return ["PCIE_IN_SXM_SOCKET"]
    out = []
    if pos.kind == "pcie" and slot_width(card) > pos.max_width:
        out.append("CARD_TOO_WIDE")
    length, room = card.form_factor.length_mm.value, chassis.max_card_length_mm.value
    if pos.kind == "pcie" and length and room and length > room:
        out.append("CARD_TOO_LONG")
    return out


def bridge_problem(slots: list[int], cards: dict[int, CardSpec], chassis: ChassisSpec) -> str | None:
    """Code of the first rule a bridge over ``slots`` breaks (None when it is a valid NVLink bridge):
    every slot holds a card, the cards are identical and bridgeable, the group size is one the card takes,
    and the cards sit side by side at one card-width pitch. Shared by bridge_checks and check_bridge."""
    if any(s not in cards for s in slots):
        return "BRIDGE_EMPTY_SLOT"
    if len({cards[s].id for s in slots}) > 1:
        return "BRIDGE_MIXED_CARDS"
    card = cards[slots[0]]
    if card.form_factor.kind == "sxm":
        return "BRIDGE_ON_SXM"
    if card.nvlink is None or card.nvlink.fabric != "bridge":
        return "BRIDGE_NO_NVLINK"
    if len(slots) not in card.nvlink.bridge_sizes:
        return "BRIDGE_SIZE"
    xs = sorted(chassis.position(s).x for s in slots)
    if any(b - a != (slot_width(card) or 2) for a, b in itertools.pairwise(xs)):
        return "BRIDGE_NOT_ADJACENT"
    return None


def _card_checks(card: CardSpec, slot: int, chassis: ChassisSpec, pos: SlotPosition, problems: list[str],
                 ) -> list[Check]:  # fmt: skip
    """A card that sits in its slot: too wide, too long, passive in desk airflow, or in a slower slot."""
    out: list[Check] = []
    if "CARD_TOO_WIDE" in problems:
        out.append(Check(severity="error", code="CARD_TOO_WIDE", slot=slot, message=(
            f"{card.name} is {slot_width(card)} slots wide; slot {slot} takes cards up to "
            f"{pos.max_width} wide.")))  # fmt: skip
    if "CARD_TOO_LONG" in problems:
        length, room = card.form_factor.length_mm.value or 0, chassis.max_card_length_mm.value or 0
        out.append(Check(severity="error", code="CARD_TOO_LONG", slot=slot, message=(
            f"{card.name} in slot {slot} is {length:.0f} mm long; {chassis.name} takes cards up to {room:.0f} mm. "
            "Pick a shorter card or a chassis with full-length (312 mm) slots.")))  # fmt: skip
    if card.cooling.kind == "passive" and chassis.airflow == "desk":
        # the card's own cooling source (specs/cards.yaml cooling.source), never another card's product brief
        note = f" ({card.cooling.note})" if card.cooling.note else ""
        out.append(Check(severity="error", code="PASSIVE_CARD_NEEDS_SERVER_AIRFLOW", slot=slot, message=(
            f"{card.name} in slot {slot} has a passive heat sink that needs the front-to-rear airflow of a server "
            f"chassis; {chassis.name} has desk airflow. Choose a server chassis, or an actively cooled card "
            "(RTX PRO 6000 Workstation or Max-Q)."),
            detail=f"{card.name} cooling: {card.cooling.source}{note}"))  # fmt: skip
    card_gen = int(card.pcie_generation.value or pos.pcie_generation)
    if pos.kind == "pcie" and (pos.pcie_generation < card_gen or pos.lanes < 16):
        out.append(Check(severity="warning", code="SLOT_SLOWER_THAN_CARD", slot=slot, message=(
            f"Slot {slot} is PCIe Gen{pos.pcie_generation} x{pos.lanes}; {card.name} is Gen{card_gen} x16, "
            "so host and peer-to-peer transfers run at the slot's rate. Move it to a "
            f"Gen{card_gen} x16 slot for its full rate.")))  # fmt: skip
    return out


def _socket_check(card: CardSpec, slot: int, problems: list[str]) -> Check | None:
    """An SXM module in a PCIe slot or a PCIe card in an SXM socket: the card does not go in at all."""
    if "SXM_IN_PCIE_SLOT" in problems:
        return Check(severity="error", code="SXM_IN_PCIE_SLOT", slot=slot, message=(
            f"{card.name} is an SXM module and slot {slot} is a PCIe slot: choose an HGX chassis "
            "(SXM sockets on an NVSwitch baseboard) or a PCIe card."))  # fmt: skip
    if "PCIE_IN_SXM_SOCKET" in problems:
        return Check(severity="error", code="PCIE_IN_SXM_SOCKET", slot=slot, message=(
            f"Slot {slot} is an SXM socket on an HGX baseboard; {card.name} is a PCIe card. "
            "Use H100 SXM or H200 SXM here, or a PCIe chassis."))  # fmt: skip
    return None


def _occupancy_checks(spans: dict[int, range], chassis: ChassisSpec, cards: dict[int, CardSpec]) -> list[Check]:
    """A card covering another card's position, or an empty one."""
    out: list[Check] = []
    occupied = sorted(spans.items())
    for i, (a, span_a) in enumerate(occupied):
        for b, span_b in occupied[i + 1 :]:
            if set(span_a) & set(span_b):
                out.append(Check(severity="error", code="SLOT_BLOCKED", slot=b, message=(
                    f"The card in slot {a} is {len(span_a)} slots wide and covers slot {b}: move one of them "
                    "to a free position.")))  # fmt: skip
    for pos in chassis.positions:
        if pos.slot in cards:
            continue
        for a, span in spans.items():
            if pos.x in span:
                out.append(
                    Check(
                        severity="info",
                        code="SLOT_COVERED",
                        slot=pos.slot,
                        message=(f"Slot {pos.slot} is covered by the card in slot {a} and cannot take another card."),
                    )
                )
    return out


def _spacing_checks(spans: dict[int, range], cards: dict[int, CardSpec]) -> list[Check]:
    """Blower / flow-through spacing (chassis-power.md §3.3: blower A6000s needed a slot gap in a 4U server)."""
    out: list[Check] = []
    for a, span_a in spans.items():
        if cards[a].cooling.kind != "flow-through":
            continue
        for b, span_b in spans.items():
            if b != a and span_b.start == span_a.stop:
                out.append(Check(severity="warning", code="FLOW_THROUGH_NO_GAP", slot=a, message=(
                    f"{cards[a].name} in slot {a} blows through its back plate into the card in slot {b} "
                    "with no gap: leave a free slot between them or use Max-Q (blower) cards "
                    "for dense builds.")))  # fmt: skip
    return out


def slot_checks(build: Build, chassis: ChassisSpec, cards: dict[int, CardSpec]) -> list[Check]:
    """Whether each card goes in its slot and sits there well, then what the cards' widths cover."""
    out: list[Check] = []
    spans: dict[int, range] = {}
    for slot, card in sorted(cards.items()):
        pos = chassis.position(slot)
        problems = fit_problems(card, chassis, pos)
        socket = _socket_check(card, slot, problems)
        if socket is not None:
            out.append(socket)
            continue
        spans[slot] = card_span(card, pos.x)
        out += _card_checks(card, slot, chassis, pos, problems)
    out += _board_checks(cards, chassis)
    return out + _occupancy_checks(spans, chassis, cards) + _spacing_checks(spans, cards)


def _board_checks(cards: dict[int, CardSpec], chassis: ChassisSpec) -> list[Check]:
    """An SXM module of another model than the HGX board's (links.board_card: one SKU a board)."""
    board = board_card(cards, chassis)
    if board is None:
        return []
    name = cards[min(s for s, c in cards.items() if c.id == board)].name
    return [Check(severity="error", code="SXM_BOARD_MIXED", slot=slot, message=(
        f"Slot {slot} holds {card.name}, but this HGX board holds {name}: an HGX baseboard carries one GPU model "
        f"on all its sockets, so {card.name} cannot sit on it or reach the others over NVLink. Use {name} here, "
        f"or make every module {card.name}."))
        for slot, card in sorted(cards.items())
        if card.form_factor.kind == "sxm" and chassis.position(slot).kind == "sxm" and card.id != board]  # fmt: skip


def bridge_checks(build: Build, chassis: ChassisSpec, cards: dict[int, CardSpec]) -> list[Check]:
    out: list[Check] = []
    seen: dict[int, int] = {}
    for i, bridge in enumerate(build.bridges):
        slots = bridge.slots
        first = slots[0]
        empty = [s for s in slots if s not in cards]
        if empty:
            out.append(
                Check(
                    severity="error",
                    code="BRIDGE_EMPTY_SLOT",
                    slot=empty[0],
                    message=(
                        f"Bridge {i + 1} names slot(s) {empty} with no card: place cards there or remove the bridge."
                    ),
                )
            )
            continue
        for s in slots:
            if s in seen:
                out.append(
                    Check(
                        severity="error",
                        code="BRIDGE_OVERLAP",
                        slot=s,
                        message=(
                            f"Slot {s} is in bridges {seen[s] + 1} and {i + 1}: a card takes one NVLink bridge; "
                            "remove it from one of them."
                        ),
                    )
                )
            seen[s] = i
        problem = bridge_problem(slots, cards, chassis)
        card = cards[first]
        if problem == "BRIDGE_MIXED_CARDS":
            kinds = sorted({cards[s].name for s in slots})  # the cards' names: the check reaches the customer sheet
            out.append(Check(severity="error", code="BRIDGE_MIXED_CARDS", slot=first, message=(
                f"Bridge {i + 1} (slots {slots}) joins different cards ({', '.join(kinds)}): an NVLink "
                "bridge joins identical cards.")))  # fmt: skip
        elif problem == "BRIDGE_ON_SXM":
            out.append(Check(severity="error", code="BRIDGE_ON_SXM", slot=first, message=(
                f"Bridge {i + 1} (slots {slots}): {card.name} modules talk over the NVSwitch baseboard; "
                "they take no NVLink bridge. Remove the bridge.")))  # fmt: skip
        elif problem == "BRIDGE_NO_NVLINK":
            out.append(Check(severity="error", code="BRIDGE_NO_NVLINK", slot=first, message=(
                f"{card.name} in slots {slots} has no NVLink: it exchanges data over PCIe only. Remove the "
                "bridge, or use H200 NVL / H100 NVL cards for an NVLink domain.")))  # fmt: skip
        elif problem == "BRIDGE_SIZE":
            assert card.nvlink is not None
            sizes = " or ".join(f"{n}-way" for n in card.nvlink.bridge_sizes)
            out.append(Check(severity="error", code="BRIDGE_SIZE", slot=first, message=(
                f"Bridge {i + 1} (slots {slots}): {card.name} takes a {sizes} NVLink bridge, not "
                f"{len(slots)} cards.")))  # fmt: skip
        elif problem == "BRIDGE_NOT_ADJACENT":
            order = [s for _, s in sorted((chassis.position(s).x, s) for s in slots)]
            out.append(Check(severity="error", code="BRIDGE_NOT_ADJACENT", slot=first, message=(
                f"Bridge {i + 1} needs its cards side by side at one card-width pitch; slots "
                f"{order} are not adjacent. Move the cards next to each other.")))  # fmt: skip
    return out


def power_budget(build: Build, chassis: ChassisSpec, cards: dict[int, CardSpec]) -> tuple[Power, list[Check]]:
    limits = {c.slot: c.power_limit_w for c in build.cards}
    cards_w = sum(card_power_w(card, limits.get(s)) for s, card in cards.items())
    platform = chassis.platform_power_w.value or 0.0
    total = cards_w + platform
    watts_each = chassis.psu.watts_each.value
    capacity = chassis.psu_capacity_w if watts_each else None
    transient = platform + CARD_EXCURSION * cards_w
    transient_cap = (watts_each * chassis.psu.units * ATX3_PSU_EXCURSION) if (
        watts_each and chassis.psu.atx3_excursion) else None  # fmt: skip
    power = Power(
        wall=wall_circuit_draw(build, total, transient),
        cards_w=cards_w,
        platform_w=platform,
        total_w=total,
        psu_capacity_w=capacity,
        margin_w=capacity - total if capacity is not None else None,
        tight_above_w=PSU_TIGHT_FRACTION * capacity if capacity is not None else None,
        transient_demand_w=transient,
        transient_capacity_w=transient_cap,
    )
    checks: list[Check] = []
    if not watts_each:
        checks.append(Check(severity="warning", code="PSU_UNKNOWN", message=(
            f"{chassis.name}: PSU rating not published in the catalog; check the vendor's configuration "
            f"against {total:,.0f} W of cards and platform.")))  # fmt: skip
    elif capacity is not None and total > capacity:
        red = f" with {chassis.psu.redundant_units} redundant unit(s) held back" if chassis.psu.redundant_units else ""
        checks.append(
            Check(
                severity="error",
                code="PSU_OVERLOAD",
                message=(
                    f"Cards ({cards_w:,.0f} W) and platform ({platform:,.0f} W) draw {total:,.0f} W; the PSUs give "
                    f"{capacity:,.0f} W{red}. Lower card power limits, remove a card, or fit larger PSUs."
                ),
            )
        )
    elif capacity is not None and total > PSU_TIGHT_FRACTION * capacity:  # a rating (watts_each) gives one
        checks.append(Check(severity="warning", code="PSU_TIGHT", message=(
            f"{total:,.0f} W of {capacity:,.0f} W PSU capacity ({total / capacity:.0%}): under 10 % margin "
            "for fans and ageing. Consider lower card power limits.")))  # fmt: skip
    if transient_cap is not None and transient > transient_cap:
        checks.append(
            Check(
                severity="warning",
                code="PSU_TRANSIENT",
                message=(
                    f"Card power excursions (up to {CARD_EXCURSION:g}× for 100 µs under PCIe CEM 5.0) could reach "
                    f"{transient:,.0f} W; the ATX 3.x PSU carries {transient_cap:,.0f} W for 100 µs. "
                    "Lower power limits or fit a larger PSU."
                ),
            )
        )
    elif transient_cap is None and watts_each and transient > (installed := watts_each * chassis.psu.units):
        # a server PSU publishes no excursion rating (only ATX 3.x states 200 % for 100 µs). Redundant units share
        # the load, so only an excursion past every installed unit's continuous rating is raised: the shop asks
        checks.append(Check(severity="info", code="PSU_TRANSIENT_UNRATED", message=(
            f"Card power excursions (up to {CARD_EXCURSION:g}× for 100 µs under PCIe CEM 5.0) could reach "
            f"{transient:,.0f} W, more than the {installed:,.0f} W its {chassis.psu.units} PSUs are rated for "
            f"continuously, and {chassis.name}'s PSUs publish no excursion rating: check with their maker that "
            "they carry this.")))  # fmt: skip
    checks += wall_checks(power)
    return power, checks


def wall_circuit_draw(build: Build, total_w: float, transient_w: float) -> WallCircuitDraw | None:
    """The build's sustained draw at the wall against its site's circuit (engine.model.wall; None without a site)."""
    if build.site is None:
        return None
    w = wall_draw(build.site, total_w, transient_w)
    c = w.circuit
    return WallCircuitDraw(
        circuit=c.label, basis=c.basis, volts=c.volts, breaker_amps=c.amps,
        continuous_fraction=c.continuous_fraction, psu_efficiency=PSU_EFFICIENCY, sustained_w=w.sustained_w,
        amps=w.amps, continuous_w=w.continuous_w, transient_w=w.transient_w, overloaded=w.overloaded,
    )  # fmt: skip


def wall_checks(power: Power) -> list[Check]:
    """The overload check of the build's wall circuit (none without a site, or within its rating)."""
    w = power.wall
    if w is None or not w.overloaded:
        return []
    limit = f" × {w.continuous_fraction:.0%}" if w.continuous_fraction < 1 else ""
    message = (
        f"At the wall the build draws about {w.sustained_w:,.0f} W ({power.total_w:,.0f} W of cards and platform "
        f"at {w.psu_efficiency:.0%} PSU efficiency, {w.amps:,.1f} A at {w.volts:g} V) on one circuit; "
        f"{w.circuit} carries {w.continuous_w:,.0f} W continuously ({w.volts:g} V × {w.breaker_amps:g} A{limit}; "
        f"{w.basis}). "
        "Lower card power limits, split the PSUs over two circuits, or use a higher-rated circuit (208-240 V)."
    )
    return [Check(severity="error", code="WALL_CIRCUIT_OVERLOAD", message=message)]
