"""Edits on a build, Qt-free: each returns a new Build (builds are immutable) or raises EditRefused.

One module per subject: ``cards``, ``bridges``, ``jobs``, ``mig``, ``assumptions``, ``host`` (installed DIMMs
and drives, checkpoints kept) and ``kiosk`` (the demo's edits). ``check_*`` functions return the reason an
edit is refused, or None; the GUI asks them while the user drags, to highlight slots and to say why a drop is
refused. Widgets never change a build themselves: they
call ``document.edit(text, partial(editing.fn, ...))``, which wraps the edit in an undo command.
"""

from configurator.engine.editing.assumptions import set_assumption, set_compute_rates, set_link_rates
from configurator.engine.editing.base import EditRefused
from configurator.engine.editing.bridges import add_bridge, bridge_group_for, check_bridge, remove_bridge
from configurator.engine.editing.cards import (
    check_place,
    default_swap_target,
    move_card,
    place_card,
    remove_card,
    remove_cards,
    set_chassis,
    swap_cards,
    swap_note,
)
from configurator.engine.editing.host import (
    check_dimms,
    check_drives,
    clear_host_dimms,
    clear_host_drives,
    set_checkpoints_kept,
    set_host_dimms,
    set_host_drives,
)
from configurator.engine.editing.jobs import (
    add_job,
    assign_job,
    check_assign,
    duplicate_job,
    follow_title,
    is_generated_name,
    job_title,
    parallelism_for,
    remove_job,
    rename_job,
    set_job_cards,
    set_parallelism,
    toggle_job_card,
    unique_job_name,
    update_job,
    update_job_titled,
)
from configurator.engine.editing.mig import (
    check_mig_layout,
    instance_mapping,
    lost_placements,
    remove_mig_instance,
    set_mig_layout,
    snap_start,
)

__all__ = [
    "EditRefused",
    "add_bridge",
    "add_job",
    "assign_job",
    "bridge_group_for",
    "check_assign",
    "check_bridge",
    "check_dimms",
    "check_drives",
    "check_mig_layout",
    "check_place",
    "clear_host_dimms",
    "clear_host_drives",
    "default_swap_target",
    "duplicate_job",
    "follow_title",
    "instance_mapping",
    "is_generated_name",
    "job_title",
    "lost_placements",
    "move_card",
    "parallelism_for",
    "place_card",
    "remove_bridge",
    "remove_card",
    "remove_cards",
    "remove_job",
    "remove_mig_instance",
    "rename_job",
    "set_assumption",
    "set_chassis",
    "set_checkpoints_kept",
    "set_compute_rates",
    "set_host_dimms",
    "set_host_drives",
    "set_job_cards",
    "set_link_rates",
    "set_mig_layout",
    "set_parallelism",
    "snap_start",
    "swap_cards",
    "swap_note",
    "toggle_job_card",
    "unique_job_name",
    "update_job",
    "update_job_titled",
]
