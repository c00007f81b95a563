"""Edits on a plan, Qt-free: each returns a new, validated Plan (plans are immutable) or raises EditRefused.

A planner window wraps these in undo commands, as the build editor wraps ``engine/editing.py``; every edit
goes through ``Plan.model_validate``, so an edit can never leave a plan the loader would refuse on structure.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from configurator.catalog.yamlio import format_loc
from configurator.engine.planner.plan import Plan


class EditRefused(ValueError):
    """An edit that would make the plan invalid; the message names the field and why."""


def _rebuild(data: dict[str, Any]) -> Plan:
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = format_loc(tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))))
        raise EditRefused(f"{where}: {err['msg']}" if where else err["msg"]) from None


def _data(plan: Plan) -> dict[str, Any]:
    return plan.model_dump(mode="json", exclude_defaults=True)


def _item(items: list[Any], index: int, what: str) -> None:
    if not 0 <= index < len(items):
        raise EditRefused(f"there is no {what} {index} (the plan has {len(items)})")


def set_fields(plan: Plan, section: str, **changes: Any) -> Plan:
    """Change keys of a top-level section (``service``, ``roadmap``, ``search``, ``assumptions``)."""
    if section not in ("service", "roadmap", "search", "assumptions"):
        raise EditRefused(f"unknown section {section!r}")
    data = _data(plan)
    data[section] = {**data.get(section, {}), **changes}
    return _rebuild(data)


def _set_in(plan: Plan, key: str, what: str, index: int, changes: dict[str, Any]) -> Plan:
    """Change fields of item ``index`` of the list ``key``; a field set to None returns to its default."""
    data = _data(plan)
    _item(data[key], index, what)
    merged = {**data[key][index], **changes}
    data[key][index] = {k: v for k, v in merged.items() if v is not None}
    return _rebuild(data)


def _add_to(plan: Plan, key: str, item: dict[str, Any]) -> Plan:
    data = _data(plan)
    data[key].append(item)
    return _rebuild(data)


def _remove_from(plan: Plan, key: str, what: str, index: int) -> Plan:
    data = _data(plan)
    _item(data[key], index, what)
    del data[key][index]
    return _rebuild(data)


def set_class(plan: Plan, index: int, **changes: Any) -> Plan:
    """Change fields of job class ``index``; a field set to None returns to its default."""
    return _set_in(plan, "classes", "job class", index, changes)


def add_class(plan: Plan, job_class: dict[str, Any]) -> Plan:
    return _add_to(plan, "classes", job_class)


def remove_class(plan: Plan, index: int) -> Plan:
    return _remove_from(plan, "classes", "job class", index)


def set_node(plan: Plan, index: int, **changes: Any) -> Plan:
    """Change fields of node type ``index``; a field set to None returns to its default."""
    return _set_in(plan, "nodes", "node type", index, changes)


def add_node(plan: Plan, node: dict[str, Any]) -> Plan:
    return _add_to(plan, "nodes", node)


def remove_node(plan: Plan, index: int) -> Plan:
    return _remove_from(plan, "nodes", "node type", index)


def set_price(plan: Plan, catalog_id: str, price: float | None) -> Plan:
    """Enter (or, with None, remove) the price of a card or chassis."""
    data = _data(plan)
    prices = dict(data.get("prices", {}))
    if price is None:
        prices.pop(catalog_id, None)
    else:
        prices[catalog_id] = price
    data["prices"] = prices
    return _rebuild(data)
