"""The MIG editor's two lists: the card's profiles (dragged onto the grid) and the layout combo.

Split out of ``editor.py`` (issue 11: modules under ~400 lines); the editor keeps the widgets as
``palette_list`` and ``preset_box`` and calls these to fill them.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import QComboBox, QListWidgetItem, QWidget

from configurator.catalog.cards import MigProfile, MigSpec
from configurator.engine.mig.layout import enumerate_layouts
from configurator.engine.model.build import MigInstanceRequest
from configurator.present.verdict import plural
from configurator.present.words import memory_label, mig_profile_gb
from configurator.ui.dnd import DragList, mig_profile_mime
from configurator.ui.mig.common import PROFILE_ROLE, _count_label, _swatch, layout_label, profile_colour

Choices = list[tuple[str, tuple[str, ...]]]  # layout combo entries: (name, profiles)


class ProfileList(DragList):
    """The card's MIG profiles; dragged out by name (``MIG_PROFILE_MIME``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(icon_px=14, spacing=3, parent=parent)
        self.setAccessibleName("MIG profiles")

    def payload(self, item: QListWidgetItem) -> QMimeData:
        return mig_profile_mime(item.data(PROFILE_ROLE))


def nominal_gb(p: MigProfile) -> float:
    """The profile's headline size (its name's), else the catalog's nominal figure, else what the driver shows."""
    catalog = p.memory_nominal_gb.value
    return mig_profile_gb(p.name, catalog if catalog is not None else p.capacity_gb)


def profile_text(p: MigProfile, unit: str = "GB") -> str:
    """'1g.24gb' over '22.1 GiB · 24 GB nominal': the driver's capacity in the view's unit, the nominal figure the
    name's (in GB, as the name prints it)."""
    return f"{p.name}\n{memory_label(p.capacity_gb, unit)} · {nominal_gb(p):g} GB nominal"


def fill_palette(palette: ProfileList, spec: MigSpec, unit: str = "GB") -> None:
    palette.clear()
    for p in spec.profiles:
        item = QListWidgetItem(_swatch(profile_colour(spec, p.name)), profile_text(p, unit))
        item.setData(PROFILE_ROLE, p.name)
        starts = ", ".join(str(s) for s in p.placement.starts)
        item.setToolTip(
            f"<b>{p.name}</b> (profile id {p.profile_id}): {memory_label(p.capacity_gb, unit)} as the driver shows it "
            f"({p.memory_gib.value:g} GiB; {nominal_gb(p):g} GB nominal), "
            f"{p.sm_count.value:g} SMs, {plural(p.compute_slices, 'compute slice')}.<br>Occupies "
            f"{plural(p.placement.size, 'grid unit')}; starts {starts}; at most {p.max_count} per card.<br>"
            "Drag onto the grid, or "
            "double-click to add it where it fits."
        )
        palette.addItem(item)


def fill_layouts(box: QComboBox, spec: MigSpec) -> Choices:
    """Fill the layout combo (presets, then every maximal layout); returns the choices by item data."""
    box.blockSignals(True)
    box.clear()
    choices: Choices = []
    box.addItem("Choose a layout…", -1)
    for name, profiles in spec.presets.items():
        choices.append((name, tuple(profiles)))
        box.addItem(f"{name}: {_count_label(spec, profiles)}", len(choices) - 1)
    layouts = enumerate_layouts(spec)
    if layouts:
        box.insertSeparator(box.count())
        for names in layouts:
            label = layout_label(spec, names)
            choices.append((label, tuple(names)))
            box.addItem(label, len(choices) - 1)
            box.setItemData(box.count() - 1, "maximal layout", Qt.ItemDataRole.ToolTipRole)
    box.view().setMinimumWidth(box.view().sizeHintForColumn(0) + 24)
    box.blockSignals(False)
    return choices


def select_layout(box: QComboBox, choices: Choices, spec: MigSpec, requests: list[MigInstanceRequest] | None) -> None:
    """Show the entry matching the current layout, or 'Custom: …' / 'Choose a layout…'."""
    box.blockSignals(True)
    index = 0
    if requests is None:
        box.setItemText(0, "Choose a layout…")
    else:
        names = sorted(r.profile for r in requests)
        match = next((k for k, (_, p) in enumerate(choices) if sorted(p) == names), None)
        if match is not None:
            index = box.findData(match)
        box.setItemText(0, f"Custom: {_count_label(spec, names)}" if names else "No instances")
    box.setCurrentIndex(max(index, 0))
    box.blockSignals(False)
