"""Step time chart: per job, one optimizer step split by op class (compute- or memory-bound, engine/time/steptime)
and each collective on top."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPen
from PySide6.QtWidgets import (
    QWidget,
)

from configurator.engine import BuildResult
from configurator.engine.model.result import JobResult
from configurator.engine.time.compute import attention_kernel_parts
from configurator.engine.time.steptime.band import step_band
from configurator.present.colours import ink_on
from configurator.present.job_words import band_caveat_words, step_range_words, step_words
from configurator.present.link_words import COMM_SHARE_NOTE, comm_share_words, link_rates_note
from configurator.present.op_words import collective_name, op_name
from configurator.present.words import jobs_named
from configurator.ui.charts.common import (
    COMPUTE_MATMUL,
    COMPUTE_MEMORY,
    LINK_STYLE,
    OTHER_LINK,
    _Chart,
    _wrap,
)

BAR_WIDTH = 0.56
JOB_WORDS_GAP_PX = 8  # between neighbouring jobs' words
Y_HEADROOM = 1.32  # the plot's top over the tallest bar: room for the words above it


def _fit_phrases(phrases: list[str], metrics: QFontMetrics, room: float) -> str:
    """``phrases`` joined by spaces, a line broken between two phrases where the line would pass ``room`` px (and
    inside a phrase that is wider than ``room`` on its own, between its words)."""
    words = [w for p in phrases for w in (p.split(" ") if metrics.horizontalAdvance(p) > room else [p])]
    out: list[str] = []
    for phrase in words:
        if out and metrics.horizontalAdvance(f"{out[-1]} {phrase}") <= room:
            out[-1] = f"{out[-1]} {phrase}"
        else:
            out.append(phrase)
    return "\n".join(out)


def _hypothetical(job: JobResult) -> bool:
    """The job does not fit its cards (the engine's status): its step time is one it would take if it did ('tight'
    may fit on the day, 'unknown' is not known not to)."""
    return job.status == "does-not-fit"


def _hatched(colour: str) -> QBrush:
    """A segment of a job that does not fit: hatched in its colour over the panel."""
    return QBrush(QColor(colour), Qt.BrushStyle.BDiagPattern)


@dataclass
class _Segment:
    y0: float
    y1: float
    text: str


class StepTimeChart(_Chart):
    """One stacked bar per job: compute (matmuls, then memory-bound work) and each collective on top,
    coloured by the link it runs over; the step time and comm/compute ratio written above each bar."""

    MAX_LABELS = 16
    MAX_SEGMENT_LABELS = 24

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Step time chart", legend_cols=4, parent=parent)
        pen = pg.mkPen("w", width=0.8)
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.styles: dict[str, tuple[str, str]] = {
            "matmul": COMPUTE_MATMUL, "memory": COMPUTE_MEMORY, **LINK_STYLE, "other": OTHER_LINK,
        }  # fmt: skip
        for key, (_, colour) in self.styles.items():
            bar = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, y0=[], brush=colour, pen=pen)
            self.plot.addItem(bar)
            self.bars[key] = bar
        self.step_marks = pg.PlotDataItem([], [], pen=pg.mkPen(self.ink, width=2.5), connect="pairs")
        self.step_marks.setZValue(12)
        self.plot.addItem(self.step_marks)
        # the legend's sample of a job that does not fit: its bar hatched, a time it would take if it did
        self.hypothetical_key = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, brush=_hatched("#8a8a8a"),
                                                pen=pg.mkPen("#8a8a8a", width=1))  # fmt: skip
        # a legend entry with no sample: the attention kernel the engine timed (hovering a bar says more)
        self.kernel_key = pg.PlotDataItem([], [], pen=None)
        self.labels = [self._label((0.5, 1.0)) for _ in range(self.MAX_LABELS)]
        self.seg_labels = [self._label((0.5, 0.5)) for _ in range(self.MAX_SEGMENT_LABELS)]
        self._seg_names: list[tuple[int, float, float, str, str]] = []
        self._seg_forms: list[list[str]] = []
        self._x_range = (-0.6, 0.6)
        self._y_hi = 1.0
        self._job_words: list[tuple[list[list[str]], str]] = []  # per job, its lines' phrases and colour
        self.plot.vb.sigResized.connect(self._resized)
        self.segments: list[list[_Segment]] = []
        self._totals: list[float] = []
        self._comm: list[float] = []
        self._set_axes("", "Time per optimizer step (s)")
        self.plot.getAxis("bottom").setHeight(40)
        self.plot.scene().sigMouseMoved.connect(self._hover)

    def bar_totals(self) -> list[float]:
        """Per job: compute seconds plus every collective's seconds (the height of its bar)."""
        return list(self._totals)

    def comm_seconds(self) -> list[float]:
        """Every collective's seconds, job after job, in the order the engine lists them."""
        return list(self._comm)

    def update_result(self, result: BuildResult) -> None:
        self._result = result
        self._job_words = []  # the words of the result drawn before are not this one's (a resize re-fits them)
        jobs = result.jobs
        data, kinds_used, marks_x, marks_y = self._stack_bars(result)
        hypothetical = [_hypothetical(job) for job in jobs]
        for key, bar in self.bars.items():
            xs, hs, y0s = data[key]
            brushes, pens = self._bar_looks(key, xs, hypothetical)
            bar.setOpts(x=np.array(xs), height=np.array(hs), y0=np.array(y0s), width=BAR_WIDTH, brushes=brushes,
                        pens=pens)  # fmt: skip
        self.step_marks.setData(marks_x, marks_y)

        n = len(jobs)
        top = max(self._totals, default=0.0)
        if n == 0 or top <= 0:
            for t in (*self.labels, *self.seg_labels):
                t.setVisible(False)
            self.plot.getAxis("bottom").setTicks([[]])
            self._set_legend([])
            self._set_title("Step time")
            self._set_note("")
            self._show_empty("Add a job to see its step time" if n == 0 else
                             "No compute or communication time known for these jobs")  # fmt: skip
            return
        self._hide_empty()
        y_hi = top * Y_HEADROOM
        self._label_jobs(result)
        ticks = [(float(i), _wrap(j.name, 26 if n <= 3 else 16)) for i, j in enumerate(jobs)]
        self.plot.getAxis("bottom").setTicks([ticks])
        entries: list[tuple[object, str]] = [(self.bars[k], self.styles[k][0]) for k in self.styles if k in kinds_used]
        if marks_x:
            entries.append((self.step_marks, "step time (after overlap)"))
        if any(hypothetical):
            entries.append((self.hypothetical_key, "hatched: does not fit — its time if it did"))
        kernels = attention_words(result)
        if kernels:
            entries.append((self.kernel_key, kernels))
        self._set_legend(entries)
        self._set_title("Time per optimizer step, per job")
        self._set_note(self._basis_note(result))
        span = max(n - 0.4 - -0.6, 2.4)  # one or two jobs: bars no wider than a third of the plot
        mid = (n - 1) / 2
        self._x_range = (mid - span / 2, mid + span / 2)
        self._y_hi = y_hi
        self.plot.setXRange(*self._x_range, padding=0)
        self.plot.setYRange(0, y_hi, padding=0)
        self._fit_job_labels()
        self._place_segment_labels()

    def _bar_looks(self, key: str, xs: list[float], hypothetical: list[bool]) -> tuple[list[QBrush] | None,
                                                                                     list[QPen] | None]:  # fmt: skip
        """Per bar of kind ``key`` its brush and pen where some job does not fit (its segments hatched in their
        colour and outlined: a time it would take if it did, not one it will); None: the kind's one brush."""
        if not any(hypothetical) or not xs:  # (pyqtgraph 0.13 fails on an empty list of pens)
            return None, None
        colour = self.styles[key][1]
        edge = pg.mkPen("#1f1f1f" if self.dark else "w", width=0.8)
        brushes = [_hatched(colour) if hypothetical[int(x)] else pg.mkBrush(colour) for x in xs]
        pens = [pg.mkPen(colour, width=1.2) if hypothetical[int(x)] else edge for x in xs]
        return brushes, pens

    def _stack_bars(
        self, result: BuildResult
    ) -> tuple[dict[str, tuple[list[float], list[float], list[float]]], set[str], list[float], list[float]]:
        """Each job's bar as stacked segments, compute first, then every collective: per bar kind its
        (x, height, y0) lists, the kinds used and the step-time ticks; keeps the read-back lists."""
        data: dict[str, tuple[list[float], list[float], list[float]]] = {k: ([], [], []) for k in self.bars}
        totals: list[float] = []
        comm: list[float] = []
        segments: list[list[_Segment]] = []
        marks_x: list[float] = []
        marks_y: list[float] = []
        kinds_used: set[str] = set()

        seg_names: list[tuple[int, float, float, str, str]] = []
        seg_forms: list[list[str]] = []  # per segment its words, longest first (_place_segment_labels)

        def put(key: str, i: int, y0: float, h: float, name: str) -> None:
            data[key][0].append(float(i))
            data[key][1].append(h)
            data[key][2].append(y0)
            kinds_used.add(key)
            # on a hatched bar (a job that does not fit) the name stands on the panel, not on the fill
            ink = self.ink if _hypothetical(result.jobs[i]) else ink_on(self.styles[key][1])
            seg_names.append((i, y0, y0 + h, f"{name} {h:.2f} s", ink))
            bare = re.sub(r" \((compute|memory)\)$", "", name)  # the colour and the legend say the bound
            seg_forms.append(list(dict.fromkeys([f"{name} {h:.2f} s", f"{bare} {h:.2f} s", f"{bare}\n{h:.2f} s",
                                                 f"{h:.2f} s"])))  # fmt: skip

        for i, job in enumerate(result.jobs):
            segs: list[_Segment] = []
            y = _stack_compute(i, job, put, segs)
            for c in job.communication.collectives:
                key = c.link if c.link in LINK_STYLE else "other"
                put(key, i, y, c.seconds, collective_name(c.name))
                segs.append(_Segment(y, y + c.seconds, (
                    f"<b>{c.name}</b> ({c.kind}, ×{c.count_per_step})<br>"
                    f"{c.bytes_per_card / 1e9:.1f} GB per card over {c.link} at {c.rate_gb_s:g} GB/s "
                    f"({c.rate_basis})<br>{c.seconds:.3f} s per step")))  # fmt: skip
                comm.append(c.seconds)
                y += c.seconds
            totals.append(y)
            segments.append(segs)
            if job.step_seconds is not None and job.communication.collectives:
                # ticks either side of the bar, clear of the segment names
                marks_x += [i - BAR_WIDTH / 2 - 0.14, i - BAR_WIDTH / 2, i + BAR_WIDTH / 2, i + BAR_WIDTH / 2 + 0.14]
                marks_y += [job.step_seconds] * 4
        self._totals, self._comm, self.segments, self._seg_names = totals, comm, segments, seg_names
        self._seg_forms = seg_forms
        return data, kinds_used, marks_x, marks_y

    def _label_jobs(self, result: BuildResult) -> None:
        """Above each bar: its step time and its communication as a share of compute (red when it dominates)."""
        jobs = result.jobs
        self._job_words = []
        for i, label in enumerate(self.labels):
            if i >= len(jobs):
                label.setVisible(False)
                continue
            job = jobs[i]
            ratio = job.communication.ratio_to_compute
            # each line as the phrases it may break between where a bar is narrow (_fit_job_labels)
            lines: list[list[str]]
            if job.step_seconds is None:
                lines = [["step time unknown"]]
                if job.compute is not None and job.compute.notes:
                    # say where the labelled estimate is (the RTX PRO 6000 Server publishes no dense BF16 rate)
                    lines.append(["no published rate:", "View › Compute rates"] if result.compute_rates == "published"
                                 else ["(no compute rate)"])  # fmt: skip
                colour = "#8a8a8a"
            else:
                step = [f"step {step_words(job, 2)}"]
                if job.compute is not None and job.compute.bf16_rate_estimated:
                    step.append("(estimated rate)")
                # a job that does not fit has no step time: the engine's figure is what it would take if it did
                lines = [["does not fit —", "time if it did:"], step] if _hypothetical(job) else [step]
                if ratio is not None:
                    lines.append(comm_share_words(ratio))
                else:
                    lines.append(["no", "communication"])
                band = step_range_words(job)
                if band:  # the engine's band: where published runs not used to fit the model fell
                    lines.append(["range", band])
                # the engine's verdicts: the job does not fit, or communication dominates
                colour = self.alert if job.communication.dominates or _hypothetical(job) else self.ink
            self._job_words.append((lines, colour))
            notes = ([f"Range: {job.step_band_basis}."] if job.step_band_basis else []) + (
                [COMM_SHARE_NOTE] if ratio is not None and job.step_seconds is not None else [])  # fmt: skip
            label.setToolTip("\n".join(notes))
            label.setPos(float(i), self._totals[i])
            label.setVisible(True)

    def _fit_job_labels(self, *_: object) -> None:
        """Each job's words broken between their phrases to the width between bars, and the plot tall enough over
        each bar for its words: four jobs at 1024x768 ran 'step 3.14 s (estimated rate)' and 'range 2.64–8.28 s'
        into their neighbours, and the outer two out of the plot."""
        if not self._job_words or self.plot.vb.width() <= 0:
            return
        x_lo, x_hi = self._x_range
        room = self.plot.vb.width() / (x_hi - x_lo) - JOB_WORDS_GAP_PX
        plot_h = self.plot.vb.height()
        y_hi = max(self._totals, default=0.0) * Y_HEADROOM
        for i, (lines, colour) in enumerate(self._job_words):
            label = self.labels[i]
            metrics = QFontMetrics(label.textItem.font())
            self._set_text(label, "\n".join(_fit_phrases(line, metrics, room) for line in lines), colour, centred=True)
            # the words stand on the bar's top: the range keeps their height (and a little more) above it
            share = (label.textItem.boundingRect().height() + 6) / plot_h if plot_h > 0 else 1.0
            if share < 0.7:
                y_hi = max(y_hi, self._totals[i] / (1 - share))
        if abs(y_hi - self._y_hi) > 1e-9 * max(y_hi, 1.0):
            self._y_hi = y_hi
            self.plot.setYRange(0, y_hi, padding=0)

    def _resized(self, *_: object) -> None:
        self._fit_job_labels()
        self._place_segment_labels()

    def _place_segment_labels(self, *_: object) -> None:
        """Name the segments tall enough on screen for a line, the tallest first while labels last, each in the
        longest of its words that its bar's width holds ('Recompute (compute) 0.75 s', 'Recompute 0.75 s', '0.75 s'):
        at 2560x1440 a 0.07 s segment had a name and a 0.75 s one none, its name longer than the bar."""
        pool = self.seg_labels
        shown = 0
        if not self.is_empty() and self._seg_names:
            w = max(self.plot.vb.width(), 200.0)
            h = max(self.plot.vb.height(), 120.0)
            x_lo, x_hi = self._x_range
            bar_px = BAR_WIDTH / (x_hi - x_lo) * w
            metrics = QFontMetrics(pool[0].textItem.font())
            tallest = sorted(range(len(self._seg_names)), key=lambda k: self._seg_names[k][1] - self._seg_names[k][2])
            for k in tallest:
                i, y0, y1, _full, colour = self._seg_names[k]
                if shown >= len(pool) or (y1 - y0) / self._y_hi * h < 15:
                    break
                room = (y1 - y0) / self._y_hi * h
                text = next((t for t in self._seg_forms[k]
                             if max(metrics.horizontalAdvance(line) for line in t.split("\n")) + 8 <= bar_px
                             and (t.count("\n") + 1) * metrics.height() + 4 <= max(room, 15)), None)  # fmt: skip
                if text is None:
                    continue
                t = pool[shown]
                self._set_text(t, text, colour, centred=True)
                t.setPos(float(i), (y0 + y1) / 2)
                t.setVisible(True)
                shown += 1
        for t in pool[shown:]:
            t.setVisible(False)

    @staticmethod
    def _basis_note(result: BuildResult) -> str:
        # plain text: the note is escaped where it meets pyqtgraph (charts/common.py _set_note), so markup would show;
        # link rates only where a job communicates (present/link_words.py)
        note = link_rates_note(result)
        # the band's own words, then each job's own caveat (where it is of a kind no run in the band is), jobs with
        # one caveat named together: the caveat was only in a tooltip
        generic = step_band().basis
        caveats: dict[tuple[str, ...], list[str]] = {}
        for job in result.jobs:
            if job.step_band_basis:
                caveats.setdefault(tuple(job.step_band_outside), []).append(job.name)
        band = f"Range: {generic}." if caveats else ""
        every = [job.name for job in result.jobs]
        for outside, names in caveats.items():
            if outside:  # 'as these jobs are' where several share it
                band += f" For {jobs_named(names, every)}: {band_caveat_words(outside, len(names))}."
        return f"{note}. {band}" if note and band else f"{note}." if note else band

    # ---- hover ----
    def tooltip_for(self, index: int, y: float) -> str | None:
        if not 0 <= index < len(self.segments):
            return None
        for seg in self.segments[index]:
            if seg.y0 <= y <= seg.y1:
                return seg.text
        return None

    def _hover(self, pos: QPointF) -> None:
        if not self.segments or self.is_empty():
            return
        point = self.plot.vb.mapSceneToView(pos)
        i = round(point.x())
        text = self.tooltip_for(i, point.y()) if abs(point.x() - i) <= BAR_WIDTH / 2 else None
        self._show_tip(pos, text)

    def set_dark(self, dark: bool) -> None:
        super().set_dark(dark)
        self.step_marks.setPen(pg.mkPen(self.ink, width=2.5))
        for bar in self.bars.values():
            bar.setOpts(pen=pg.mkPen("#1f1f1f" if dark else "w", width=0.8))
        if hasattr(self, "_result"):
            self.update_result(self._result)


# ====================================================================================================
# Roofline
# ====================================================================================================


OP_WORDS = {
    "projections": "attention projections (q, k, v, o GEMMs)",
    "mlp": "MLP GEMMs (experts: active ones)",
    "attention": "attention kernel",
    "elementwise": "norms, activations, rotary, residual adds",
    "lora": "LoRA A and B (thin GEMMs) and their add",
    "dequant": "4-bit dequantisation before each use",
    "loss": "logits GEMM and cross-entropy",
    "recompute": "recomputed forward (activation checkpointing)",
    "optimizer": "optimizer step (states read and written)",
    "vision": "vision tower: encoder and projector GEMMs, attention, norms (and their backward where it trains)",
    "host": "kernel launches: the GPU waits on the host",
}


def attention_words(result: BuildResult) -> str:
    """The legend's line naming the attention kernel(s) the engine timed the jobs' steps with."""
    timed = [j.compute.attention_kernel for j in result.jobs if j.compute is not None and j.step_seconds is not None]
    words = list(dict.fromkeys(attention_kernel_parts(kernel)[0] for kernel in timed if kernel))
    if not words:
        return ""
    return f"attention: {words[0]} kernel" if len(words) == 1 else f"attention kernels: {', '.join(words)}"


def _op_words(name: str, kernel: str | None) -> str:
    """What an op class is; attention as the kernel the engine timed (cuDNN, FlashAttention-2, eager) and how, with
    no brackets inside brackets: "eager kernel — s × s matmuls and softmax"."""
    if name == "attention" and kernel:
        word, how = attention_kernel_parts(kernel)
        return f"{word} kernel" + (f" — {how}" if how else "")
    return OP_WORDS.get(name, name)


def _stack_compute(i: int, job, put, segs: list[_Segment]) -> float:  # type: ignore[no-untyped-def]
    """Job ``i``'s compute segments from 0 up; returns their top. With the per-op model one segment per op class,
    coloured compute- or memory-bound (the engine's flag); else matrix multiplies and memory-bound work."""
    y = 0.0
    comp = job.compute
    # No step time (a card without a published rate): draw no partial compute either, so the bar
    # doesn't show "memory-bound 0.58 s" under "step time unknown".
    if comp is None or job.step_seconds is None:
        return y
    est = "<br>at an ESTIMATED rate (no published dense BF16 rate)" if comp.bf16_rate_estimated else ""
    if comp.ops and comp.seconds_per_step:
        for op in comp.step_ops():  # the engine's split of the step time (a recipe's speed-up applied)
            seconds = op.seconds
            if seconds <= 0:
                continue
            key = "matmul" if op.bound == "compute" else "memory"
            put(key, i, y, seconds, f"{op_name(op.name)} ({op.bound})")  # in full: "(com.)" read as communication
            segs.append(_Segment(y, y + seconds, (
                f"<b>{op.name}</b>: {_op_words(op.name, comp.attention_kernel)}<br>{seconds:.3f} s per step, "
                f"{op.bound}-bound<br>{op.flops / 1e12:,.1f} TFLOP, {op.bytes / 1e9:,.1f} GB moved{est}")))  # fmt: skip
            y += seconds
        return y
    for key, seconds, what in (
        ("matmul", comp.matmul_seconds, "matrix multiplies"),
        ("memory", comp.memory_bound_seconds, "memory-bound work (optimizer step, dequantisation)"),
    ):
        if seconds:
            put(key, i, y, seconds, "Compute" if key == "matmul" else "Memory-bound")
            segs.append(_Segment(y, y + seconds, f"<b>Compute</b>: {what}<br>{seconds:.3f} s per step"
                                 + (est if key == "matmul" else "")))  # fmt: skip
            y += seconds
    return y
