"""The Jobs form's "Runs on" group: one check box per card (or per MIG instance) in the build; ticking one
runs the selected job there, its parallelism following (engine/editing.toggle_job_card)."""

from __future__ import annotations

from functools import partial

from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout

from configurator.catalog.cards import short_card_name
from configurator.catalog.richtext import escape_rich
from configurator.engine import Build, editing
from configurator.engine.model.build import Job
from configurator.ui.jobs.fields import CardCheck, blocked
from configurator.ui.jobs.form_kit import FormKit

# Card names elide to this many pixels (full name in the accessible name): at 250 the group needed 261 px and
# overflowed the 268 px a 1280x800 window gives the Jobs dock, its right edge clipped.
LABEL_WIDTH = 210


class CardsRows:
    def __init__(self, kit: FormKit) -> None:
        self.kit = kit
        self.key: tuple = ()  # type: ignore[type-arg]
        self.checks: dict[tuple[int, int | None], CardCheck] = {}
        self.group = QGroupBox("Runs on")
        self.group.setObjectName("cardsGroup")
        self.layout = QVBoxLayout(self.group)
        self.layout.setContentsMargins(6, 4, 6, 4)
        self.layout.setSpacing(2)
        self.no_cards = QLabel("No cards placed: drag a card into the chassis first.")
        self.no_cards.setWordWrap(True)
        self.layout.addWidget(self.no_cards)
        kit.form.addRow(self.group)

    def fill(self, build: Build, job: Job) -> None:
        key = tuple((c.slot, c.card, tuple(r.profile for r in c.mig) if c.mig else None) for c in build.cards)
        if key != self.key:
            self.key = key
            self._rebuild(build)
        mine = set(job.card_keys)
        others: dict[tuple[int, int | None], list[str]] = {}
        for k, other in enumerate(build.jobs):
            if k != self.kit.index:
                for ref in other.card_keys:
                    others.setdefault(ref, []).append(other.name)
        for ref, check in self.checks.items():
            with blocked([check]):
                check.setChecked(ref in mine)
            shared = others.get(ref, [])
            what = "this MIG instance (a job runs in one instance only)" if ref[1] is not None else "this card"
            check.setToolTip(f"Run {escape_rich(job.name)} on {what}"
                             + (f"; also used by {escape_rich(', '.join(shared))}" if shared else ""))  # fmt: skip

    def _rebuild(self, build: Build) -> None:
        """One check box per card, or per MIG instance of a split card."""
        for check in self.checks.values():
            self.layout.removeWidget(check)
            check.setParent(None)
            check.deleteLater()
        self.checks.clear()
        for c in build.cards:
            card = self.kit.doc.catalog.cards.get(c.card)
            full = card.name if card else c.card
            name = short_card_name(full, abbreviate=False)
            refs = [(k, f"slot {c.slot} · {r.profile} #{k}") for k, r in enumerate(c.mig)] if c.mig else [
                (None, f"slot {c.slot} · {name}")]  # fmt: skip
            for instance, text in refs:
                check = CardCheck(text, c.slot, instance, width=LABEL_WIDTH)
                check.setAccessibleName(f"{text} ({full})")
                check.setObjectName(f"card{c.slot}" + ("" if instance is None else f"_{instance}"))
                check.chosen.connect(self._toggled)
                self.layout.addWidget(check)
                self.checks[(c.slot, instance)] = check
        self.no_cards.setVisible(not build.cards)

    def _toggled(self, slot: int, instance: int, checked: bool) -> None:
        kit = self.kit
        job = kit.job()
        if job is None:
            return
        check = self.checks.get((slot, None if instance < 0 else instance))
        where = check.label if check else f"slot {slot}"
        make = partial(editing.toggle_job_card, index=kit.index, slot=slot,
                       instance=None if instance < 0 else instance, on=checked)  # fmt: skip
        text = f"Run {job.name} on {where}" if checked else f"Take {job.name} off {where}"
        if check is not None and not kit.apply(check, "cards", where, {}, text=text, make=make):
            with blocked([check]):
                check.setChecked(not checked)
