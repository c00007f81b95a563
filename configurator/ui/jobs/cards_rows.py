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


class CardsRows:
    def __init__(self, kit: FormKit) -> None:
        self.kit = kit
        self.key: tuple = ()  # type: ignore[type-arg]
        self.checks: dict[tuple[int, int | None], CardCheck] = {}
        self.where: dict[tuple[int, int | None], str] = {}  # each check's card in whole words, for its tooltip
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
            check.setToolTip(f"Run {escape_rich(job.name)} on {escape_rich(self.where[ref])}"
                             + (f"; also used by {escape_rich(', '.join(shared))}" if shared else ""))  # fmt: skip

    def _rebuild(self, build: Build) -> None:
        """One check box per card, or per MIG instance of a split card."""
        for check in self.checks.values():
            self.layout.removeWidget(check)
            check.setParent(None)
            check.deleteLater()
        self.checks.clear()
        self.where.clear()
        for c in build.cards:
            card = self.kit.doc.catalog.cards.get(c.card)
            full = card.name if card else c.card
            # the check box shows the whole name where the dock is wide enough, else the abbreviated one
            # ('RTX PRO 6000 Server'), else that cut at the right; the tooltip names the card in full
            name, short = short_card_name(full, abbreviate=False), short_card_name(full)
            slot = f"slot {c.slot}"
            refs: list[tuple[int | None, str, str, str]] = [
                (None, f"{slot} · {name}", f"{slot} · {short}", f"the {full} in {slot}")]  # fmt: skip
            if c.mig:  # one per instance: 'slot 1 · 1g.24gb #0' is short already
                once = "(a job runs in one instance only)"
                refs = [(k, f"{slot} · {r.profile} #{k}", f"{slot} · {r.profile} #{k}",
                         f"MIG instance {r.profile} #{k} of the {full} in {slot} {once}")
                        for k, r in enumerate(c.mig)]  # fmt: skip
            for instance, text, brief, where in refs:
                check = CardCheck(text, c.slot, instance, short=brief)
                self.where[(c.slot, instance)] = where
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
