"""The kiosk window: scenarios shown, live figures, visitor edits (layout, attract loop, PIN, take-home in mixins)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import (
    QPointF,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFontMetrics, QGuiApplication, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QWidget,
)

from configurator.catalog.loader import Catalog, default_catalog
from configurator.catalog.richtext import escape_rich
from configurator.engine import Build, BuildResult
from configurator.engine.editing.kiosk import (
    put_card,
    set_bridged,
    set_card_count,
    set_method,
    set_sequence_length,
    short_name,
)
from configurator.engine.model.buildfile import load_build
from configurator.present.words import headroom_label, to_unit
from configurator.ui.kiosk.attract import AttractMixin
from configurator.ui.kiosk.layout import STYLE, LayoutMixin
from configurator.ui.kiosk.pin import PinMixin
from configurator.ui.kiosk.planmode import PlanMixin
from configurator.ui.kiosk.planspec import PlanFigureSpec
from configurator.ui.kiosk.scenarios import (
    ACCENT,
    CHART_WORDS,
    CYCLE_MS,
    FADE_MS,
    INK,
    MESSAGE_MS,
    METHODS,
    SEQUENCE_LENGTHS,
    STATUS_INK,
    STATUS_WORDS,
    Figure,
    FigureSpec,
    Scenario,
    bar_text,
    chart_spec,
    load_scenarios,
    read_figure,
)
from configurator.ui.kiosk.takehome import TakeHomeMixin
from configurator.ui.kiosk.widgets import _font
from configurator.ui.shell import BuildDocument, Settings

BAR_WORDS_GAP = 10  # px between neighbouring bar labels, at 1920x1080


class DemoWindow(LayoutMixin, PlanMixin, AttractMixin, PinMixin, TakeHomeMixin, QWidget):
    """The kiosk. ``cover_screen()`` shows it over the whole screen; it also lays out at any fixed size."""

    exit_requested = Signal()
    scenario_changed = Signal(int)
    take_home_done = Signal(str)  # the shown shop reference line ('' on failure), after the worker

    def __init__(self, settings: Settings | None = None, parent: QWidget | None = None, *,
                 idle_ms: int | None = None, cycle_ms: int | None = None, fade_ms: int | None = None,
                 catalog: Catalog | None = None, scenarios_path: Path | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setObjectName("DemoWindow")
        self.setWindowTitle("GPU Build Configurator: demo")
        self.settings = settings or Settings()
        self.unit = self.settings.get("units")  # the window's View > Units, for every figure and the chart
        self.catalog = catalog or default_catalog()
        self.scenarios = load_scenarios(scenarios_path, self.catalog)
        self._builds = [load_build(s.build_path, self.catalog) if s.build_path else None for s in self.scenarios]
        minutes = self.settings.get("demo/idle_minutes")
        self.idle_ms = idle_ms if idle_ms is not None else max(int(minutes * 60_000), 1_000)
        self.cycle_ms = cycle_ms if cycle_ms is not None else CYCLE_MS
        self.fade_ms = fade_ms if fade_ms is not None else FADE_MS
        self.allow_close = False  # window-manager closes (Alt+F4) are refused unless this is set
        self._index = 0
        self._scale = 1.0  # screen scale: kiosk/scaling.py, set on resize
        self._attracting = False
        self._saving = False
        self._filtering = False
        self._last_move: QPointF | None = None
        self._init_plans()
        self.doc = BuildDocument(self._first_build(), self.catalog, path=self.scenarios[0].build_path)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setFont(_font(18))
        self.setStyleSheet(STYLE)
        self._build_ui()
        self._build_timers()
        self.doc.changed.connect(self._on_changed)
        self.doc.refused.connect(self.say)
        self.chassis.status.connect(self._chassis_status)
        # the chart re-labels its bars when its plot is resized (HeadroomChart._rewrap): say the kiosk's words again
        self.chart.plot.vb.sigResized.connect(self._chart_resized)
        self.exit_shortcut = QShortcut(QKeySequence("Ctrl+Shift+Q"), self)
        self.exit_shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.exit_shortcut.activated.connect(self.show_pin_pad)
        self.show_scenario(0)

    def cover_screen(self) -> None:
        """The whole screen, with or without a window manager: frameless, on top, at the screen's full geometry,
        then full screen. ``showFullScreen()`` alone asks the window manager; on a bare X session (as kiosks often
        run) nobody answered and the window stayed at its default 853x533 on a 1280x800 screen."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        self.setWindowFlags(self.windowFlags() | Qt.WindowType.FramelessWindowHint
                            | Qt.WindowType.WindowStaysOnTopHint)  # fmt: skip
        if screen is not None:
            self.setGeometry(screen.geometry())
        self.showFullScreen()
        self.raise_()
        self.activateWindow()

    def _build_timers(self) -> None:
        self.idle_timer = QTimer(self)
        self.idle_timer.setSingleShot(True)
        self.idle_timer.timeout.connect(self.start_attract)
        self.cycle_timer = QTimer(self)
        self.cycle_timer.timeout.connect(self._cycle)
        self.message_timer = QTimer(self)
        self.message_timer.setSingleShot(True)
        self.message_timer.setInterval(MESSAGE_MS)
        self.message_timer.timeout.connect(self._clear_message)

    def _first_build(self) -> Build:
        """The build the document opens with: the first scenario's (a plan scenario's planned node)."""
        s = self.scenarios[0]
        build = self._builds[0]
        if build is None and s.plan is not None:
            base = s.plan_path.parent if s.plan_path else None
            build = self.plan_results.planned(s.plan, base)[1]
        if build is None:
            build = next((b for b in self._builds if b is not None), None)
        if build is None:
            raise ValueError("the demo's first scenario gives no build (its plan finds no fleet)")
        return build

    # ---- scenarios ----
    def scenario_count(self) -> int:
        return len(self.scenarios)

    def current_index(self) -> int:
        return self._index

    @property
    def scenario(self) -> Scenario:
        return self.scenarios[self._index]

    def show_scenario(self, index: int, animated: bool = False) -> None:
        """Show scenario ``index`` as its file has it (any visitor change is dropped)."""
        index %= len(self.scenarios)
        if animated and self.isVisible() and self.fade_ms > 0:
            self.fade_anim.stop()
            self.fade.setPixmap(self.stage.grab())
            self.fade.setGeometry(self.stage.rect())
            self.fade_effect.setOpacity(1.0)
            self.fade.show()
            self.fade.raise_()
        self._index = index
        s = self.scenarios[index]
        self.title.setText(s.title)
        self.text.setText(s.text)
        self.card_palette.set_cards(s.cards)
        self.pal_box.setVisible(not s.is_plan)
        self.plan_box.setVisible(s.is_plan)
        self.chassis.armed = None
        self.chassis.locked = s.is_plan  # the planner's node: changed through the plan's buttons
        self.seq_box.setVisible("sequence" in s.controls)
        self.method_box.setVisible("method" in s.controls)
        self.count_box.setVisible("cards" in s.controls or "bridge" in s.controls)
        for n, b in self.count_buttons.items():
            b.setVisible("cards" in s.controls and n in s.card_counts)
        self.bridge_button.setVisible("bridge" in s.controls)
        self.scenario_buttons[index].setChecked(True)
        self._clear_message()
        build = self._builds[index]
        if build is not None:
            self.doc.replace(build, s.build_path)
        else:
            self._show_plan(s)
        if animated and self.fade.isVisible():
            self.fade_anim.setDuration(self.fade_ms)
            self.fade_anim.start()
        self.scenario_changed.emit(index)

    def reset_scenario(self) -> None:
        self.show_scenario(self._index)

    def _scenario_clicked(self, index: int) -> None:
        self.show_scenario(index, animated=True)

    def _fade_done(self) -> None:
        self.fade.hide()
        self.fade.setPixmap(QPixmap())

    # ---- the live figures ----
    def figure(self, spec: FigureSpec | PlanFigureSpec) -> Figure:
        if isinstance(spec, PlanFigureSpec):
            return self.plan_figure(spec)
        return read_figure(spec, self.doc.build, self.doc.result, self.catalog, self.doc.models, self.unit)

    def key_figure(self) -> Figure:
        return self.figure(self.scenario.key)

    def key_figure_text(self) -> str:
        """The key figure as shown, e.g. '60 GB left for activations on the RTX PRO 6000 Server'."""
        return self.key_figure().text

    def _on_changed(self, build: Build, result: BuildResult) -> None:
        s = self.scenario
        key = self.key_figure()
        ink = STATUS_INK.get(key.status, INK)
        self.key_number.setText(key.number)
        self.key_number.setStyleSheet(f"color: {ink};")
        self.key_label.setText(key.label)
        self.key_status.setText(key.words or STATUS_WORDS.get(key.status, ""))
        self.key_status.setStyleSheet(f"color: {ink};")
        for i, label in enumerate(self.more_labels):
            if i < len(s.more):
                f = self.figure(s.more[i])
                colour = STATUS_INK.get(f.status, INK) if f.value is not None and f.value < 0 else INK
                size = f"{26 * self._scale:.1f}pt"
                label.setText(f"<span style='font-size:{size}; font-weight:bold; color:{colour}'>"
                              f"{escape_rich(f.number)}</span>&nbsp; {escape_rich(f.label)}")  # fmt: skip
                label.show()
            else:
                label.hide()
        self.rates_note.setVisible(build.assumptions.link_rates == "nominal")
        self.chart.update_result(result)
        self._tune_chart()
        self._sync_controls(build)

    def _tune_chart(self) -> None:
        """Kiosk-sized bar labels; each bar says what the big figure says, in its words (chart_spec): the same
        field, the same number format, the field's words in the chart title. Narrow bars get smaller labels
        and one-line ticks (the tenant for MIG slices, else the slot)."""
        rows = self.chart.rows
        if not rows:
            return
        s = self._scale
        spec = chart_spec(self.scenario)
        words = CHART_WORDS[spec.field] if spec is not None else "free after activations"
        self.chart.plot.setTitle(f"Memory per card (on top: {words})", color="#222", size=f"{18 * s:.1f}pt")
        per_bar = self.chart.width() * 0.85 / len(rows)
        compact = len(rows) >= 4 or per_bar < 190 * s
        # a plan's node with MIG slices can show twelve or more bars: smaller type still keeps the words apart
        font = _font((16 if not compact else 12 if len(rows) < 12 else 9) * s, True)
        for i, label in enumerate(self.chart.labels[: len(rows)]):
            label.setFont(font)
            r = rows[i][1]
            if spec is not None:
                label.setText(bar_text(float(getattr(r, spec.field)), spec, self.unit))
            elif compact:  # eight bars (a plan's node) take whole GB, so neighbouring labels do not touch
                digits = 0 if len(rows) >= 8 or abs(to_unit(r.headroom_gb, self.unit)) >= 100 else 1
                text = headroom_label(r.headroom_gb, r.fits, self.unit, digits)
                room = self.chart.plot.vb.width() / len(rows) - BAR_WORDS_GAP * s
                if QFontMetrics(font).horizontalAdvance(text) > room:
                    text = text.removesuffix(f" {self.unit}")  # the axis names the unit
                label.setText(text)
        if compact:
            ticks = [(float(i), job if r.mig else f"slot {r.slot}") for i, (job, r) in enumerate(rows)]
            self.chart.plot.getAxis("bottom").setTicks([ticks])
        self.chart.fit_labels()  # the labels' kiosk type, set above, decides the room they need

    def _chart_resized(self, *_: object) -> None:
        self._tune_chart()

    def chart_bar_text(self, job: int, card: int) -> str:
        """The words over the bar of ``job``'s card row ``card``, as drawn."""
        row = self.doc.result.jobs[job].cards[card]
        i = next(i for i, (_, r) in enumerate(self.chart.rows) if r is row)
        return str(self.chart.labels[i].textItem.toPlainText())

    def _key_job(self) -> int:
        """The job the key figure reads (the card-count and bridge buttons act on it); 0 in a plan scenario."""
        key = self.scenario.key
        return key.job if isinstance(key, FigureSpec) else 0

    def _sync_controls(self, build: Build) -> None:
        s = self.scenario
        if s.is_plan:
            self._sync_plan_controls()
            return
        job = build.jobs[min(max(self._key_job(), 0), len(build.jobs) - 1)] if build.jobs else None
        if job is None:
            return
        tokens = job.sequence_length
        self.seq_slider.blockSignals(True)
        self.seq_slider.setValue(min(range(len(SEQUENCE_LENGTHS)), key=lambda i: abs(SEQUENCE_LENGTHS[i] - tokens)))
        self.seq_slider.blockSignals(False)
        self.seq_label.setText(f"Sequence length: {tokens:,} tokens")
        for i, (m, _) in enumerate(METHODS):
            self.method_buttons[i].setChecked(m == job.method)
        n = len(job.cards)
        self.count_group.setExclusive(False)
        for count, b in self.count_buttons.items():
            b.setChecked(count == n)
        self.count_group.setExclusive(True)
        self.bridge_button.setChecked(bool(build.bridges))

    # ---- visitor edits ----
    def place_card(self, slot: int, card_id: str) -> bool:
        """A palette card onto ``slot`` (dragged, or tapped then the slot tapped)."""
        grow = self.scenario.grow_job
        name = short_name(self.catalog.cards[card_id].name)
        return self.doc.edit(f"{name} into slot {slot}", self._placer(slot, card_id, grow))

    def _placer(self, slot: int, card_id: str, grow: int | None) -> partial[Build]:
        return partial(put_card, catalog=self.catalog, slot=slot, card_id=card_id, grow_job=grow)

    def _armed(self, card_id: str) -> None:
        self.chassis.armed = card_id
        self.say(f"Now tap a slot for the {short_name(self.catalog.cards[card_id].name)}", colour=ACCENT)

    def set_sequence_length(self, tokens: int) -> bool:
        return self.doc.edit(f"Sequence length {tokens}", partial(set_sequence_length, tokens=tokens),
                             merge_key="demo-sequence")  # fmt: skip

    def _sequence_moved(self, position: int) -> None:
        tokens = SEQUENCE_LENGTHS[position]
        self.seq_label.setText(f"Sequence length: {tokens:,} tokens")
        self.set_sequence_length(tokens)

    def set_method(self, method: str) -> bool:
        return self.doc.edit(f"Method {method}", partial(set_method, method=method, models=self.doc.models))

    def _method_clicked(self, index: int) -> None:
        self.set_method(METHODS[index][0])

    def set_card_count(self, count: int) -> bool:
        make = partial(set_card_count, catalog=self.catalog, job=self._key_job(), count=count)
        ok = self.doc.edit(f"{count} cards", make)
        self._sync_controls(self.doc.build)
        return ok

    def _count_clicked(self, count: int) -> None:
        self.set_card_count(count)

    def set_bridged(self, on: bool) -> bool:
        make = partial(set_bridged, catalog=self.catalog, job=self._key_job(), on=on)
        ok = self.doc.edit("NVLink bridge " + ("on" if on else "off"), make)
        self._sync_controls(self.doc.build)
        return ok

    def _bridge_clicked(self, checked: bool) -> None:
        self.set_bridged(checked)

    def say(self, text: str, colour: str = "#B71C1C") -> None:
        self.message.setStyleSheet(f"color: {colour};")
        self.message.setText(text[:1].upper() + text[1:])
        self.message_timer.start()

    def _chassis_status(self, text: str) -> None:
        refused = text.startswith(("Cannot", "Not there", "Select"))
        self.say(text, colour="#B71C1C" if refused else ACCENT)

    def _clear_message(self) -> None:
        self.message.setText(" ")
