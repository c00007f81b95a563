"""The inputs panel: a job class's demand and shape, and the service settings. Every change is one
undoable plan edit through ``configurator.engine.planner.editing`` (stepping a spin box merges into one
undo step); the panel re-reads the plan after every change, undo included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QDoubleValidator, QValidator
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from configurator.engine.planner import Plan
from configurator.engine.planner.editing import set_class, set_fields
from configurator.present.rl_words import method_label
from configurator.ui.base import PlanDocument

NO_GROWTH_OVERRIDE = -91.0  # the growth spin box's "same as roadmap" value: the class follows the roadmap
SAME_AS_ROADMAP = "same as roadmap"


class ReadableSpinBox(QDoubleSpinBox):
    """A number as people write it: thousands grouped and no trailing zeros ("1,000,000 /day", "20 M tokens"; the
    plain spin box showed "1000000.0 /day" and "20.000 M tokens"). Typed text may carry the commas or not."""

    def textFromValue(self, value: float) -> str:
        text = f"{value:,.{self.decimals()}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text

    def _number(self, text: str) -> str:
        if self.suffix() and text.endswith(self.suffix()):
            text = text[: -len(self.suffix())]
        if self.prefix() and text.startswith(self.prefix()):
            text = text[len(self.prefix()) :]
        return text.replace(",", "").replace(" ", "").strip()

    def valueFromText(self, text: str) -> float:
        if self.specialValueText() and text == self.specialValueText():
            return self.minimum()
        try:
            return float(self._number(text))
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        state = QValidator.State
        if self.specialValueText() and text == self.specialValueText():
            return state.Acceptable, text, pos
        number = self._number(text)
        if number in ("", "-", ".", "-."):
            return state.Intermediate, text, pos
        try:
            value = float(number)
        except ValueError:
            return state.Invalid, text, pos
        frac = number.partition(".")[2]
        if "e" in number.lower() or "n" in number.lower() or len(frac) > self.decimals():
            return state.Invalid, text, pos  # no exponents, no "inf"/"nan", no more decimals than it keeps
        ok = self.minimum() <= value <= self.maximum()
        return (state.Acceptable if ok else state.Intermediate), text, pos


def _dspin(lo: float, hi: float, decimals: int, step: float, suffix: str = "", special: str = "") -> QDoubleSpinBox:
    s = ReadableSpinBox()
    s.setRange(lo, hi)
    s.setDecimals(decimals)
    s.setSingleStep(step)
    s.setSuffix(suffix)
    s.setKeyboardTracking(False)  # typed digits commit on Enter or focus out, arrows at once
    s.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
    if special:
        s.setSpecialValueText(special)
    return s


def _ispin(lo: int, hi: int, step: int = 1) -> QSpinBox:
    s = QSpinBox()
    s.setRange(lo, hi)
    s.setSingleStep(step)
    s.setKeyboardTracking(False)
    return s


class InputsPanel(QWidget):
    def __init__(self, doc: PlanDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self._loading = False
        col = QVBoxLayout(self)
        col.setContentsMargins(4, 4, 4, 4)

        col.addWidget(self._build_class_box())
        col.addWidget(self._build_service_box())
        col.addStretch(1)
        self._connect_edits()
        self.power_price.editingFinished.connect(self._power_price)
        doc.changed.connect(lambda _p: self._load())
        self._load()

    # ---- layout ----
    def _build_class_box(self) -> QGroupBox:
        """The selected job class's fields."""
        box = QGroupBox("Job class")
        form = QFormLayout(box)
        self.class_box = QComboBox()
        self.class_box.setAccessibleName("Job class")
        self.class_box.setToolTip("The job class these fields edit; the plan file lists its classes")
        self.class_box.currentIndexChanged.connect(lambda _i: self._load())
        form.addRow("Class:", self.class_box)
        self.model_label = QLabel()
        self.model_label.setWordWrap(True)
        self.model_label.setTextFormat(Qt.TextFormat.PlainText)  # the model is user text (a path, an id)
        form.addRow("Model:", self.model_label)
        self.jobs_per_day = _dspin(0, 1_000_000, 1, 1.0, " /day")
        self.jobs_per_day.setToolTip("Jobs arriving per day in the class's first month (before growth)")
        form.addRow("Jobs per day:", self.jobs_per_day)
        self.sequence_length = _ispin(1, 2_097_152, 256)
        self.sequence_length.setToolTip("Tokens per training sequence: it sets the activation memory, so which "
                                        "devices hold one job, and the tokens of each optimizer step")  # fmt: skip
        form.addRow("Sequence length:", self.sequence_length)
        self.micro_batch = _ispin(1, 4096)
        self.micro_batch.setToolTip("Sequences per device per forward/backward pass: more needs more memory")
        form.addRow("Micro-batch:", self.micro_batch)
        self.padded = QCheckBox("Padded batches (mask)")
        self.padded.setToolTip("The class's sequences are padded and the padding mask reaches the model (no packing): "
                               "SDPA then runs its memory-efficient kernel over every tile of the attention, several "
                               "times slower than the fused causal kernel")  # fmt: skip
        form.addRow("", self.padded)
        self.tokens = _dspin(0.001, 1e9, 3, 1.0, " M tokens")
        self.tokens.setToolTip("Tokens one job processes (epochs x dataset tokens), in millions")
        form.addRow("Job size:", self.tokens)
        self.growth = _dspin(NO_GROWTH_OVERRIDE, 1000, 1, 1.0, " %/month", special=SAME_AS_ROADMAP)
        self.growth.setToolTip(
            "Compound monthly growth of this class's jobs per day, in place of the Roadmap growth (Service box) "
            f"for this class only; step below -90 % to '{SAME_AS_ROADMAP}': the class grows as the roadmap does"
        )
        form.addRow("Growth:", self.growth)
        self.wait = _dspin(0, 10_000, 2, 0.25, " h", special="none")
        self.wait.setToolTip(
            "The wait 95 % of jobs start within in the busiest hour (Erlang C sizing, p95); none: no target"
        )
        form.addRow("Wait target (p95):", self.wait)
        self.from_month = _ispin(1, 120)
        self.from_month.setToolTip("The first roadmap month the class has jobs (a service launched later); "
                                   "before it the class adds no demand")  # fmt: skip
        form.addRow("From month:", self.from_month)
        return box

    def _build_service_box(self) -> QGroupBox:
        """The service, roadmap and search fields of the plan."""
        svc = QGroupBox("Service")
        sform = QFormLayout(svc)
        self.utilisation = _dspin(1, 100, 0, 5, " %")
        self.utilisation.setToolTip("The share of its hours of operation each device is planned to be busy: "
                                    "lower leaves headroom for bursts and shorter waits, at more cards")  # fmt: skip
        sform.addRow("Utilisation target:", self.utilisation)
        self.hours = _dspin(0.5, 24, 1, 1, " h/day")
        self.hours.setToolTip("Hours a day the service runs jobs; a day's arrivals are spread over them")
        sform.addRow("Hours of operation:", self.hours)
        self.power_price = QLineEdit()
        self.power_price.setPlaceholderText("unknown")
        self.power_price.setValidator(QDoubleValidator(0.0, 100.0, 4))
        self.power_price.setToolTip("Price of a kWh in the plan's currency; empty: unknown, so no energy cost")
        self.power_price_label = QLabel("Power price / kWh:")
        sform.addRow(self.power_price_label, self.power_price)
        self.pue = _dspin(1.0, 5.0, 2, 0.05)
        self.pue.setToolTip("Power usage effectiveness: facility power over IT power (cooling, power conversion); "
                            "1.0 counts the servers only")  # fmt: skip
        sform.addRow("PUE:", self.pue)
        self.roadmap_growth = _dspin(-90, 1000, 1, 1.0, " %/month")
        self.roadmap_growth.setToolTip("Compound monthly growth of every class's jobs per day, unless a class "
                                       "sets its own Growth (Job class box)")  # fmt: skip
        sform.addRow("Roadmap growth:", self.roadmap_growth)
        self.months = _ispin(1, 120)
        self.months.setToolTip("How many months the roadmap (the demand chart) covers")
        sform.addRow("Roadmap months:", self.months)
        self.size_for = _ispin(1, 120)
        self.size_for.setToolTip("The roadmap month the search sizes the fleet for")
        sform.addRow("Size for month:", self.size_for)
        return svc

    def set_currency(self, currency: str | None) -> None:
        """The plan's currency (the planner's: the plan's own or its price list's) beside the power price: a bare
        "0.0929" did not say in what."""
        unit = f"{currency} / kWh" if currency else "kWh (no currency: no prices)"
        self.power_price_label.setText(f"Power price, {unit}:")
        where = currency or "the plan's currency"
        self.power_price.setToolTip(f"Price of a kWh in {where}; empty: unknown, so no energy cost")

    def _connect_edits(self) -> None:
        """Each spin box's change is one undoable plan edit (``key`` merges repeated steps)."""

        def on(widget: Any, text: str, key: str, make: Callable[[Plan, Any], Plan]) -> None:
            widget.valueChanged.connect(lambda v: self._edit(text, key, make, v))

        on(self.jobs_per_day, "Change jobs per day", "jpd", lambda p, v: self._cls(p, jobs_per_day=v))
        on(self.sequence_length, "Change sequence length", "seq", lambda p, v: self._cls(p, sequence_length=v))
        on(self.micro_batch, "Change micro-batch", "mb", lambda p, v: self._cls(p, micro_batch_size=v))
        self.padded.toggled.connect(lambda v: self._edit("Pad batches" if v else "Stop padding batches", "pad",
                                                         lambda p, x: self._cls(p, padded_batches=x), v))  # fmt: skip
        on(self.tokens, "Change job size", "tok", lambda p, v: self._cls(p, tokens_per_job=v * 1e6, steps=None))
        on(self.growth, "Change class growth", "growth", lambda p, v: self._cls(
            p, growth_per_month=None if v <= NO_GROWTH_OVERRIDE else v / 100))  # fmt: skip
        on(self.wait, "Change wait target", "wait", lambda p, v: self._cls(p, wait_target_hours=v or None))
        on(self.from_month, "Change first month", "from", lambda p, v: self._cls(p, from_month=v))
        on(self.utilisation, "Change utilisation target", "util",
           lambda p, v: set_fields(p, "service", utilisation_target=v / 100))  # fmt: skip
        on(self.hours, "Change hours of operation", "hours", lambda p, v: set_fields(p, "service", hours_per_day=v))
        on(self.pue, "Change PUE", "pue", lambda p, v: set_fields(p, "service", pue=v))
        on(self.roadmap_growth, "Change roadmap growth", "rgrowth",
           lambda p, v: set_fields(p, "roadmap", growth_per_month=v / 100))  # fmt: skip
        on(self.months, "Change roadmap months", "months", lambda p, v: set_fields(p, "roadmap", months=v))
        on(self.size_for, "Change sizing month", "sizefor", lambda p, v: set_fields(p, "search", size_for_month=v))

    # ---- edits ----
    def _cls(self, plan: Plan, **changes: Any) -> Plan:
        return set_class(plan, self.class_box.currentIndex(), **changes)

    def _edit(self, text: str, key: str, make: Callable[[Plan, Any], Plan], value: Any) -> None:
        if self._loading:
            return
        # one undo step per field and class while the user steps it
        self.doc.edit(text, lambda p: make(p, value), merge_key=f"planner.{key}.{self.class_box.currentIndex()}")

    def _power_price(self) -> None:
        if self._loading:
            return
        text = self.power_price.text().strip().replace(",", ".")
        try:
            price = float(text) if text else None
        except ValueError:
            self.doc.refused.emit(f"power price: '{text}' is not a number")
            return
        self.doc.edit("Change power price", lambda p: set_fields(p, "service", power_price_per_kwh=price))

    # ---- read the plan into the widgets ----
    def _load(self) -> None:
        if self._loading:
            return
        self._loading = True
        try:
            plan = self.doc.plan
            names = [c.name for c in plan.classes]
            if names != [self.class_box.itemText(i) for i in range(self.class_box.count())]:
                keep = max(self.class_box.currentIndex(), 0)
                self.class_box.clear()
                self.class_box.addItems(names)
                self.class_box.setCurrentIndex(min(keep, len(names) - 1))
            c = plan.classes[max(self.class_box.currentIndex(), 0)]
            model = c.model if isinstance(c.model, str) else f"{c.model.parameters:.3g} parameters"
            self.model_label.setText(f"{model}, {method_label(c.method, c.objective)}")  # a DPO / GRPO / PPO class
            by_month = c.jobs_per_day_by_month is not None
            self.jobs_per_day.setEnabled(not by_month)
            self.jobs_per_day.setToolTip(
                "Given month by month in the plan file (jobs_per_day_by_month)"
                if by_month
                else "Jobs arriving per day in the class's first month (before growth)"
            )
            self.jobs_per_day.setValue(c.jobs_per_day or 0.0)
            self.sequence_length.setValue(c.sequence_length)
            self.micro_batch.setValue(c.micro_batch_size)
            self.padded.setChecked(c.padded_batches)
            self.tokens.setValue(c.job_tokens / 1e6)
            self.growth.setValue(NO_GROWTH_OVERRIDE if c.growth_per_month is None else c.growth_per_month * 100)
            self.wait.setValue(c.wait_target_hours or 0.0)
            self.from_month.setValue(c.from_month)
            s = plan.service
            self.utilisation.setValue(s.utilisation_target * 100)
            self.hours.setValue(s.hours_per_day)
            if not self.power_price.hasFocus():
                self.power_price.setText("" if s.power_price_per_kwh is None else f"{s.power_price_per_kwh:g}")
            self.pue.setValue(s.pue)
            self.roadmap_growth.setValue(plan.roadmap.growth_per_month * 100)
            self.months.setValue(plan.roadmap.months)
            self.size_for.setValue(plan.search.size_for_month or 1)
        finally:
            self._loading = False
