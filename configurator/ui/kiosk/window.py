"""The kiosk window, assembled from parts with their own state: the widgets (layout.KioskView), the chart's kiosk
words (kioskchart.KioskChart), the service-plan scenario (planmode.PlanMode), the attract loop
(attract.AttractLoop), the way out (pin.PinGate) and the take-home flow (takehome.TakeHomeFlow). The window shows
scenarios, reads the live figures and applies the visitor's edits."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QGuiApplication,
    QHideEvent,
    QKeyEvent,
    QKeySequence,
    QResizeEvent,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import QWidget

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
from configurator.ui.base import BuildDocument, Settings
from configurator.ui.kiosk.attract import AttractLoop
from configurator.ui.kiosk.kioskchart import KioskChart
from configurator.ui.kiosk.layout import STYLE, KioskView
from configurator.ui.kiosk.pin import PinGate
from configurator.ui.kiosk.planmode import PlanMode
from configurator.ui.kiosk.planspec import PlanFigureSpec
from configurator.ui.kiosk.scaling import scale_for
from configurator.ui.kiosk.scenarios import (
    ACCENT,
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
    load_scenarios,
    read_figure,
)
from configurator.ui.kiosk.takehome import TakeHomeFlow
from configurator.ui.kiosk.widgets import _font


class DemoWindow(QWidget):
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
        self.unit: str = self.settings.get("units")  # the window's View > Units, for every figure and the chart
        self.catalog = catalog or default_catalog()
        self.scenarios = load_scenarios(scenarios_path, self.catalog)
        self._builds = [load_build(s.build_path, self.catalog) if s.build_path else None for s in self.scenarios]
        minutes = self.settings.get("demo/idle_minutes")
        self.fade_ms = fade_ms if fade_ms is not None else FADE_MS
        self.allow_close = False  # window-manager closes (Alt+F4) are refused unless this is set
        self._index = 0
        self.scale = 1.0  # screen scale: kiosk/scaling.py, set on resize
        self.plans = PlanMode(self.scenarios, self.catalog, lambda: self.scenario, self._show_planned, self.say, self)
        self.plans.unit = self.unit
        self.doc = BuildDocument(self._first_build(), self.catalog, path=self.scenarios[0].build_path)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setFont(_font(18))
        self.setStyleSheet(STYLE)
        self.ui = KioskView(self, self.scenarios, self.catalog, self.doc, self.unit, self.plans.box)
        self.chart, self.chassis = self.ui.chart, self.ui.chassis
        self.kiosk_chart = KioskChart(self.chart, self.unit)
        self.pin_gate = PinGate(self, lambda: self.settings, self._leave)
        self.take_home_flow = TakeHomeFlow(self, self.ui.take_home_button, self.doc, self.catalog,
                                           lambda: self.settings, lambda: self.scale)  # fmt: skip
        self.take_home_flow.done.connect(self.take_home_done)
        idle = idle_ms if idle_ms is not None else max(int(minutes * 60_000), 1_000)
        self.attract = AttractLoop(self, self.ui, self.show_scenario, self.current_index, self._quiet, idle,
                                   cycle_ms if cycle_ms is not None else CYCLE_MS)  # fmt: skip
        self.message_timer = QTimer(self)
        self.message_timer.setSingleShot(True)
        self.message_timer.setInterval(MESSAGE_MS)
        self.message_timer.timeout.connect(self._clear_message)
        self._connect()
        self.exit_shortcut = QShortcut(QKeySequence("Ctrl+Shift+Q"), self)
        self.exit_shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.exit_shortcut.activated.connect(self.show_pin_pad)
        self.show_scenario(0)

    def _connect(self) -> None:
        ui = self.ui
        self.doc.changed.connect(self._on_changed)
        self.doc.refused.connect(self.say)
        self.chassis.status.connect(self._chassis_status)
        self.chassis.place = self.place_card
        ui.scenario_group.idClicked.connect(partial(self.show_scenario, animated=True))
        ui.reset_button.clicked.connect(self.reset_scenario)
        ui.card_palette.armed.connect(self._armed)
        ui.seq_slider.valueChanged.connect(self._sequence_moved)
        ui.method_group.idClicked.connect(lambda i: self.set_method(METHODS[i][0]))
        ui.count_group.idClicked.connect(self.set_card_count)
        ui.bridge_button.clicked.connect(self.set_bridged)

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

    def _first_build(self) -> Build:
        """The build the document opens with: the first scenario's (a plan scenario's planned node)."""
        s = self.scenarios[0]
        build = self._builds[0]
        if build is None and s.plan is not None:
            base = s.plan_path.parent if s.plan_path else None
            build = self.plans.plan_results.planned(s.plan, base)[1]
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
        ui = self.ui
        index %= len(self.scenarios)
        animated = animated and self.isVisible() and self.fade_ms > 0
        if animated:
            ui.start_fade()
        self._index = index
        s = self.scenarios[index]
        ui.title.setText(s.title)
        ui.text.setText(s.text)
        ui.card_palette.set_cards(s.cards)
        ui.pal_box.setVisible(not s.is_plan)
        self.plans.box.setVisible(s.is_plan)
        self.chassis.armed = None
        self.chassis.locked = s.is_plan  # the planner's node: changed through the plan's buttons
        ui.seq_box.setVisible("sequence" in s.controls)
        ui.method_box.setVisible("method" in s.controls)
        ui.count_box.setVisible("cards" in s.controls or "bridge" in s.controls)
        for n, b in ui.count_buttons.items():
            b.setVisible("cards" in s.controls and n in s.card_counts)
        ui.bridge_button.setVisible("bridge" in s.controls)
        ui.scenario_buttons[index].setChecked(True)
        self._clear_message()
        build = self._builds[index]
        if build is not None:
            self.doc.replace(build, s.build_path)
        else:
            self.plans.show_plan(s)
        if animated:
            ui.fade_in(self.fade_ms)
        self.scenario_changed.emit(index)

    def reset_scenario(self) -> None:
        self.show_scenario(self._index)

    def _show_planned(self, build: Build | None) -> None:
        """The plan's first fleet's node on screen; with no fleet the last node stays and the figures say so."""
        if build is not None:
            self.doc.replace(build, None)
        else:
            self._on_changed(self.doc.build, self.doc.result)

    # ---- the live figures ----
    def figure(self, spec: FigureSpec | PlanFigureSpec) -> Figure:
        if isinstance(spec, PlanFigureSpec):
            return self.plans.plan_figure(spec)
        return read_figure(spec, self.doc.build, self.doc.result, self.catalog, self.doc.models, self.unit)

    def key_figure(self) -> Figure:
        return self.figure(self.scenario.key)

    def key_figure_text(self) -> str:
        """The key figure as shown, e.g. '60 GB left for activations on the RTX PRO 6000 Server'."""
        return self.key_figure().text

    def _on_changed(self, build: Build, result: BuildResult) -> None:
        ui, s = self.ui, self.scenario
        key = self.key_figure()
        ink = STATUS_INK.get(key.status, INK)
        ui.key_number.setText(key.number)
        ui.key_number.setStyleSheet(f"color: {ink};")
        ui.key_label.setText(key.label)
        ui.key_status.setText(key.words or STATUS_WORDS.get(key.status, ""))
        ui.key_status.setStyleSheet(f"color: {ink};")
        for i, label in enumerate(ui.more_labels):
            if i < len(s.more):
                f = self.figure(s.more[i])
                colour = STATUS_INK.get(f.status, INK) if f.value is not None and f.value < 0 else INK
                size = f"{24 * self.scale:.1f}pt"
                label.setText(f"<span style='font-size:{size}; font-weight:bold; color:{colour}'>"
                              f"{escape_rich(f.number)}</span>&nbsp; {escape_rich(f.label)}")  # fmt: skip
                label.show()
            else:
                label.hide()
        ui.rates_note.setVisible(build.assumptions.link_rates == "nominal")
        self.kiosk_chart.show(s, result)  # the words the bars take, before they are drawn
        self.chart.update_result(result)
        ui.balance_top()  # the figures' words set the key card's height; the chart's drawing its least width
        self._sync_controls(build)

    def chart_bar_text(self, job: int, card: int) -> str:
        """The words over the bar of ``job``'s card row ``card``, as drawn."""
        return self.kiosk_chart.bar_text(self.doc.result.jobs[job].cards[card])

    def _key_job(self) -> int:
        """The job the key figure reads (the card-count and bridge buttons act on it); 0 in a plan scenario."""
        key = self.scenario.key
        return key.job if isinstance(key, FigureSpec) else 0

    def _sync_controls(self, build: Build) -> None:
        if self.scenario.is_plan:
            self.plans.sync_controls()
            return
        job = build.jobs[min(max(self._key_job(), 0), len(build.jobs) - 1)] if build.jobs else None
        if job is None:
            return
        ui = self.ui
        tokens = job.sequence_length
        ui.seq_slider.blockSignals(True)
        ui.seq_slider.setValue(min(range(len(SEQUENCE_LENGTHS)), key=lambda i: abs(SEQUENCE_LENGTHS[i] - tokens)))
        ui.seq_slider.blockSignals(False)
        ui.seq_label.setText(f"Sequence length: {tokens:,} tokens")
        for i, (m, _) in enumerate(METHODS):
            ui.method_buttons[i].setChecked(m == job.method)
        n = len(job.cards)
        ui.count_group.setExclusive(False)
        for count, b in ui.count_buttons.items():
            b.setChecked(count == n)
        ui.count_group.setExclusive(True)
        ui.bridge_button.setChecked(bool(build.bridges))

    # ---- visitor edits ----
    def place_card(self, slot: int, card_id: str) -> bool:
        """A palette card onto ``slot`` (dragged, or tapped then the slot tapped)."""
        grow = self.scenario.grow_job
        name = short_name(self.catalog.cards[card_id].name)
        make = partial(put_card, catalog=self.catalog, slot=slot, card_id=card_id, grow_job=grow)
        return self.doc.edit(f"{name} into slot {slot}", make)

    def _armed(self, card_id: str) -> None:
        self.chassis.armed = card_id
        self.say(f"Now tap a slot for the {short_name(self.catalog.cards[card_id].name)}", colour=ACCENT)

    def set_sequence_length(self, tokens: int) -> bool:
        return self.doc.edit(f"Sequence length {tokens}", partial(set_sequence_length, tokens=tokens),
                             merge_key="demo-sequence")  # fmt: skip

    def _sequence_moved(self, position: int) -> None:
        tokens = SEQUENCE_LENGTHS[position]
        self.ui.seq_label.setText(f"Sequence length: {tokens:,} tokens")
        self.set_sequence_length(tokens)

    def set_method(self, method: str) -> bool:
        return self.doc.edit(f"Method {method}", partial(set_method, method=method, models=self.doc.models))

    def set_card_count(self, count: int) -> bool:
        make = partial(set_card_count, catalog=self.catalog, job=self._key_job(), count=count)
        ok = self.doc.edit(f"{count} cards", make)
        self._sync_controls(self.doc.build)
        return ok

    def set_bridged(self, on: bool) -> bool:
        make = partial(set_bridged, catalog=self.catalog, job=self._key_job(), on=on)
        ok = self.doc.edit("NVLink bridge " + ("on" if on else "off"), make)
        self._sync_controls(self.doc.build)
        return ok

    def set_plan_servers(self, node: str | None) -> bool:
        return self.plans.set_plan_servers(node)

    def set_plan_mig(self, on: bool) -> bool:
        return self.plans.set_plan_mig(on)

    def set_plan_month(self, month: int) -> bool:
        return self.plans.set_plan_month(month)

    def say(self, text: str, colour: str = "#B71C1C") -> None:
        self.ui.message.setStyleSheet(f"color: {colour};")
        self.ui.message.setText(text[:1].upper() + text[1:])
        self.message_timer.start()

    def _chassis_status(self, text: str) -> None:
        refused = text.startswith(("Cannot", "Not there", "Select"))
        self.say(text, colour="#B71C1C" if refused else ACCENT)

    def _clear_message(self) -> None:
        self.ui.message.setText(" ")

    # ---- the attract loop, the way out, take home ----
    def is_attracting(self) -> bool:
        return self.attract.attracting

    def start_attract(self) -> None:
        self.attract.start()

    def stop_attract(self) -> None:
        self.attract.stop()

    def _quiet(self) -> None:
        self.pin_gate.pin_pad.hide()
        self.take_home_flow.code_panel.hide()

    def show_pin_pad(self) -> None:
        self.stop_attract()
        self.pin_gate.open()

    def pin(self) -> str | None:
        return self.pin_gate.pin()

    def enter_pin(self, digits: str) -> bool:
        return self.pin_gate.enter_pin(digits)

    def _leave(self) -> None:
        self.allow_close = True
        self.exit_requested.emit()

    def take_home(self) -> str:
        return self.take_home_flow.take_home()

    # ---- window events ----
    def keyPressEvent(self, event: QKeyEvent) -> None:
        event.accept()  # Escape and every other stray key: nothing (leaving takes Ctrl+Shift+Q and the PIN)

    def closeEvent(self, event: QCloseEvent) -> None:
        if event.spontaneous() and not self.allow_close:
            event.ignore()  # Alt+F4 and the like from the window manager
            return
        self._stop_everything()
        super().closeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.attract.shown()

    def hideEvent(self, event: QHideEvent) -> None:
        self._stop_everything()
        super().hideEvent(event)

    def _stop_everything(self) -> None:
        self.attract.shut()
        self.message_timer.stop()
        self.ui.fade_anim.stop()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._rescale()
        for overlay in (self.pin_gate.pin_pad, self.take_home_flow.code_panel):
            if overlay.isVisible():
                overlay.setGeometry(self.rect())
        self.attract.place_banner()

    def _rescale(self) -> None:
        """Fonts and sizes for the window's size (kiosk/scaling.py); nothing when the scale did not change."""
        s = scale_for(self.width(), self.height())
        if abs(s - self.scale) < 0.005:
            return
        self.scale = s
        self.ui.rescale(s)
        self.kiosk_chart.set_scale(s)
        self._on_changed(self.doc.build, self.doc.result)
        self.chart.settle()
