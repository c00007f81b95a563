"""Drag and drop: the MIME formats cards, slots, bridges, jobs and MIG profiles travel in, and DragList.

The other rooms of ui/ import these names from here only (an import-linter contract in pyproject.toml)."""

from configurator.ui.dnd.drag_list import DragList
from configurator.ui.dnd.mime import (
    bridge_mime,
    card_mime,
    job_mime,
    mig_profile_mime,
    read_bridge,
    read_card,
    read_job,
    read_mig_profile,
    read_slot,
    slot_mime,
)

__all__ = [
    "DragList",
    "bridge_mime",
    "card_mime",
    "job_mime",
    "mig_profile_mime",
    "read_bridge",
    "read_card",
    "read_job",
    "read_mig_profile",
    "read_slot",
    "slot_mime",
]
