"""The jobs' measured peaks and step times within their bands, and the wall draw."""

from __future__ import annotations

from collections.abc import Mapping

from configurator.catalog.units import GB, MIB
from configurator.engine.acceptance.collect import WALL_FORMAT
from configurator.engine.acceptance.findings import (
    Findings,
    Status,
    pct,
)
from configurator.engine.acceptance.predict import ESTIMATE_LABEL, JobExpect
from configurator.engine.acceptance.tolerances import WALL_UNDER_FRACTION
from configurator.engine.model.labels import figure_band_words


class RunChecks:
    """The jobs' measured peaks and step times within their bands, and the wall draw."""

    def __init__(self, findings: Findings) -> None:
        self.f = findings

    def job(self, e: JobExpect) -> None:
        measured = next((j for out in self.f.m.measure for j in out.jobs if j.name == e.name), None)
        common = {"job": e.name, "slot": e.slots[0] if e.slots else None}
        band = figure_band_words(e.nvidia_smi_gb, e.nvidia_smi_low_gb, e.nvidia_smi_high_gb, "GB", 1)
        # DCGM frame buffer used: the whole GPU's for a job on whole cards; for a job in a MIG instance, the
        # instances of its profile on its GPU (seed B: "DCGM_FI_DEV_FB_USED per instance")
        fb = [
            s.fb_used_mib
            for s in self.f.m.dcgm
            if s.gpu in e.gpus and s.fb_used_mib is not None and (s.profile == e.mig if e.mig else s.instance is None)
        ]
        if measured is not None and measured.status == "oom":
            self.f.add(
                category="job memory",
                figure=f"{e.name}: peak memory",
                status="fail",
                expected=band,
                measured="out of memory",
                cause="the job did not fit: the prediction is too low for this machine's software stack",
                source=e.band_basis,
                **common,
            )
        elif measured is not None and measured.status == "ok" and measured.device_used_gb is not None:
            self._band(
                "job memory",
                f"{e.name}: peak as nvidia-smi shows it",
                measured.device_used_gb,
                e.nvidia_smi_gb,
                e.nvidia_smi_low_gb,
                e.nvidia_smi_high_gb,
                "GB",
                e.band_basis,
                common,
            )
            if measured.peak_allocated_gb is not None:
                self._band(
                    "job memory",
                    f"{e.name}: peak allocated",
                    measured.peak_allocated_gb,
                    e.peak_allocated_gb,
                    e.allocated_low_gb,
                    e.allocated_high_gb,
                    "GB",
                    e.band_basis,
                    common,
                )
        elif fb:
            used = max(fb) * MIB / GB
            self._band(
                "job memory",
                f"{e.name}: peak FB used (DCGM)",
                used,
                e.nvidia_smi_gb,
                e.nvidia_smi_low_gb,
                e.nvidia_smi_high_gb,
                "GB",
                e.band_basis + "; DCGM_FI_DEV_FB_USED, max over the job's GPUs",
                common,
            )
        else:
            reason = measured.reason if measured is not None and measured.reason else "no measurement of this job"
            self.f.add(
                category="job memory",
                figure=f"{e.name}: peak memory",
                status="missing",
                expected=band,
                cause=reason,
                source=e.band_basis,
                **common,
            )
        if e.step_seconds is None:
            return
        if measured is not None and measured.status == "ok" and measured.step_seconds is not None:
            self._band(
                "job speed",
                f"{e.name}: step time",
                measured.step_seconds,
                e.step_seconds,
                e.step_low_s or 0,
                e.step_high_s or 0,
                "s",
                e.step_source,
                common,
                slower_is_worse=True,
                slow_cause=self._cards_at_rate(e),
                label=ESTIMATE_LABEL,
            )
        else:
            self.f.add(
                category="job speed",
                figure=f"{e.name}: step time",
                status="missing",
                # an expected figure with its band, measured or not: a missing step time was shown without its band, so
                # verify's list hid the tolerance acceptance gives
                expected=f"{figure_band_words(e.step_seconds, e.step_low_s, e.step_high_s, 's')} {ESTIMATE_LABEL}",
                cause="no measurement of this job",
                source=e.step_source,
                **common,
            )

    def _cards_at_rate(self, e: JobExpect) -> str | None:
        """Where every card of the job passed the GEMM probe (verify_compute, checked before the jobs): the words
        that put a slow step on the software, not the machine."""
        passed = {c.gpu for c in self.f.out if c.category == "compute" and c.status == "pass"}
        if not e.gpus or not set(e.gpus) <= passed:
            return None
        cards = ", ".join(f"GPU{g}" for g in e.gpus)
        who = "the card computes at its" if len(e.gpus) == 1 else "the cards compute at their"
        return (
            f"slower than the band, but {who} rated speed (the BF16 GEMM probe passed on {cards}): "
            "the gap is the software stack (framework, kernels, library versions) or the step model's error, "
            "not the machine"
        )

    def _band(
        self,
        category: str,
        figure: str,
        got: float,
        exp: float,
        low: float,
        high: float,
        unit: str,
        source: str,
        common: Mapping[str, object],
        slower_is_worse: bool = False,
        slow_cause: str | None = None,
        label: str = "",
    ) -> None:
        if low <= got <= high:
            status: Status = "pass"
            cause = None
        elif got > high:
            status = "warn"
            slow = "slower than the band: GPU clocks or power capped, a slower link, or the step model's error"
            cause = (
                (slow_cause or slow)
                if slower_is_worse
                else "above the band: less headroom than the sheet shows"
            )
        else:
            status = "pass" if slower_is_worse else "warn"
            cause = (
                "faster than the band"
                if slower_is_worse
                else "below the band: another batch or sequence length than the build's?"
            )
        self.f.add(
            category=category,
            figure=figure,
            status=status,
            expected=figure_band_words(exp, low, high, unit) + (f" {label}" if label else ""),
            measured=f"{got:,.2f} {unit}",
            difference=pct(got, exp, unit, 2),
            cause=cause,
            source=source,
            value=got,
            **common,
        )

    def wall(self) -> None:
        pw = self.f.p.power
        if pw is None:
            return
        if self.f.m.wall_w is None:
            self.f.add(
                category="wall",
                figure="wall draw under load",
                status="missing",
                expected=f"<= {pw.wall_max_w:,.0f} W (predicted {pw.wall_w:,.0f} W)",
                cause=f"write the meter's reading during nccl-tests / the jobs into wall-meter.txt as {WALL_FORMAT}",
                source=pw.source,
            )
            return
        w = self.f.m.wall_w
        low = w < pw.wall_w * WALL_UNDER_FRACTION
        if w > pw.wall_max_w:
            status, cause = "fail", (
                "more than the power budget: platform draws more than its allowance, or cards above their limits; "
                "re-check the PSU and circuit"
            )
        elif low:
            status, cause = "warn", (
                f"under {WALL_UNDER_FRACTION:.0%} of the predicted draw: the load had probably stopped (or not "
                "started) when the meter was read, or the meter reads one of several PSU feeds; read it again "
                "during nccl-tests or a job"
            )
        else:
            status, cause = "pass", None
        self.f.add(
            category="wall",
            figure="wall draw under load",
            status=status,
            expected=f"<= {pw.wall_max_w:,.0f} W (predicted {pw.wall_w:,.0f} W)",
            measured=f"{w:,.0f} W",
            difference=pct(w, pw.wall_w, "W", 0),
            value=w,
            source=pw.source,
            cause=cause,
        )
