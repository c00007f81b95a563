"""Per GPU: the sustained BF16 GEMM rate the kit's probe measured against the card's expected rate, with the
likely cause read from nvidia-smi (the power limit, the clocks and the clock-event reasons under load)."""

from __future__ import annotations

from configurator.engine.acceptance import tolerances as tol
from configurator.engine.acceptance.findings import Findings, Status, pct
from configurator.engine.acceptance.parse import GemmResult
from configurator.engine.acceptance.predict import UNCONFIRMED_LABEL, GpuExpect

THERMAL = {"SW thermal slowdown", "HW thermal slowdown"}
POWER_OR_HEAT = THERMAL | {"SW power cap", "HW slowdown", "HW power brake slowdown"}


class ComputeChecks:
    """Per GPU: the BF16 GEMM probe's rate within its tolerance, and why not."""

    def __init__(self, findings: Findings) -> None:
        self.f = findings

    def result(self, index: int) -> GemmResult | None:
        """The probe's result for GPU ``index``: the last one read that measured a rate, else the last one."""
        mine = [r for r in self.f.m.gemm if r.gpu == index]
        ok = [r for r in mine if r.status == "ok"]
        return (ok or mine)[-1] if mine else None

    def gemm(self, e: GpuExpect) -> None:
        r = self.result(e.index)
        common = {
            "category": "compute",
            "figure": f"GPU{e.index} BF16 GEMM rate",
            "slot": e.slot,
            "gpu": e.index,
            "source": e.gemm_source,
        }
        expected = (
            f"{e.gemm_tflops:,.0f} TFLOP/s (pass >= {e.gemm_pass_min:,.0f}, warn >= {e.gemm_warn_min:,.0f})"
            + (f" {UNCONFIRMED_LABEL}" if e.gemm_unconfirmed else "")
            if e.gemm_tflops is not None
            else "not predicted"
        )
        if r is None or r.status != "ok" or r.tflops is None:
            self._not_measured(r, expected, common)
            return
        got = r.tflops
        measured = f"{got:,.0f} TFLOP/s" + _readings(r)
        if e.gemm_tflops is None or e.gemm_pass_min is None or e.gemm_warn_min is None:
            self.f.add(
                status="missing",
                expected=expected,
                measured=measured,
                cause="no dense BF16 peak for this card in the catalog: the rate is recorded, not judged",
                value=got,
                **common,
            )
            return
        status: Status
        cause: str | None
        if e.gemm_peak_tflops and got > e.gemm_peak_tflops * tol.GEMM_OVER_PEAK:
            status = "warn"
            cause = (
                f"faster than the card's rated dense peak ({e.gemm_peak_tflops:,.0f} TFLOP/s): another, faster card "
                "than the build's, or the probe's timing is wrong"
            )
        elif got >= e.gemm_pass_min:
            status = "pass"
            fell = r.fell
            cause = (
                f"the rate fell {fell * 100:.0f} % during the run: the card is warming up; watch its temperature "
                "under a long load"
                if fell is not None and fell > tol.GEMM_FALL_FRACTION
                else None
            )
        else:
            status = "warn" if got >= e.gemm_warn_min or e.gemm_capped_w else "fail"
            cause = self._why_slow(e, r)
        self.f.add(
            status=status,
            expected=expected,
            measured=measured,
            difference=pct(got, e.gemm_tflops, "TFLOP/s", 0),
            cause=cause,
            value=got,
            **common,
        )

    def _not_measured(self, r: GemmResult | None, expected: str, common: dict[str, object]) -> None:
        if r is not None:
            why = r.reason or r.status
        else:
            why = "no GEMM probe result for this GPU (gemm_probe.py: needs torch with CUDA)"
            if any("GEMM probe JSON:" in p for p in self.f.m.problems):
                why += "; a GEMM probe file could not be read (see the problems)"
        failed = r is not None and r.status == "error"
        self.f.add(
            status="warn" if failed else "missing",
            expected=expected,
            measured="the probe failed" if failed else None,
            cause=(
                f"{why}: a CUDA error here (check dmesg for an Xid) points at the card, a Python error at the "
                "software stack"
                if failed
                else why
            ),
            **common,
        )

    def _why_slow(self, e: GpuExpect, r: GemmResult) -> str:
        """The mechanisms the readings show, in the words a technician acts on."""
        out: list[str] = []
        smi = r.smi
        names = set(smi.reason_names) if smi is not None else set()
        g = self.f.measured_gpu(e.index)
        limit = (g.power_limit_w if g is not None else None) or (smi.power_limit_w if smi is not None else None)
        if e.gemm_capped_w:
            out.append(
                f"the build itself caps this card at {e.gemm_capped_w:,.0f} W: a GEMM-bound card slows about in "
                "proportion to its power (specs/power-limits.yaml), so a lower rate is expected"
            )
        elif e.power_limit_w and limit is not None and limit < tol.POWER_LIMIT_MATCH_FRACTION * e.power_limit_w:
            out.append(
                f"power capped: the limit reads {limit:,.0f} W, below the {e.power_limit_w:,.0f} W the build expects "
                "(set with nvidia-smi -pl, or a BMC / datacenter power cap); a GEMM-bound card slows about in "
                "proportion (specs/power-limits.yaml: 0.69 of full speed at two-thirds of the limit). Restore it "
                f"with sudo nvidia-smi -i {e.index} -pl {e.power_limit_w:,.0f}"
            )
        if names & THERMAL:
            temp = f" at {smi.temperature_c:,.0f} C" if smi is not None and smi.temperature_c is not None else ""
            out.append(
                f"thermal slowdown{temp}: the card is too hot; check its fans, the chassis airflow and blanking "
                "panels, and that nothing blocks its intake"
            )
        if "HW slowdown" in names:
            out.append(
                "HW slowdown: the card slows itself to protect itself (overheating, or its power supply out of "
                "range): check the power cables are fully seated and rated for the card, and the PSU"
            )
        if "HW power brake slowdown" in names:
            out.append(
                "HW power brake: the server signals the cards to slow down (a PSU overloaded or failed); check the "
                "PSUs in the BMC's event log"
            )
        clocks_low = (
            smi is not None
            and smi.sm_clock_mhz is not None
            and smi.max_sm_clock_mhz
            and smi.sm_clock_mhz < tol.GEMM_CLOCK_FRACTION * smi.max_sm_clock_mhz
        )
        if "applications clocks setting" in names or (clocks_low and not names & POWER_OR_HEAT):
            clock = (
                f" (SM {smi.sm_clock_mhz:,.0f} of {smi.max_sm_clock_mhz:,.0f} MHz)"
                if smi is not None and smi.sm_clock_mhz is not None and smi.max_sm_clock_mhz
                else ""
            )
            out.append(
                f"clocks held low{clock}: locked or application clocks set (nvidia-smi -lgc / -ac); reset with "
                f"sudo nvidia-smi -i {e.index} -rgc -rac"
            )
        fell = r.fell
        if fell is not None and fell > tol.GEMM_FALL_FRACTION and not names & THERMAL:
            out.append(
                f"the rate fell {fell * 100:.0f} % from the first to the last half-second: the card heats up under load"
            )
        if not out:
            seen = "nvidia-smi's clocks, power limit and throttle reasons" if smi is not None else "the power limit"
            out.append(
                f"nothing in {seen} explains it: a slower bin or another model of the card, or the software stack "
                "(torch / cuBLAS version); rerun the probe (GEMM_SECONDS=60) and compare with another GPU of the box"
            )
        return "; ".join(out)


def _readings(r: GemmResult) -> str:
    smi = r.smi
    if smi is None:
        return ""
    parts = []
    if smi.sm_clock_mhz is not None:
        parts.append(
            f"SM {smi.sm_clock_mhz:,.0f}"
            + (f"/{smi.max_sm_clock_mhz:,.0f}" if smi.max_sm_clock_mhz is not None else "")
            + " MHz"
        )
    if smi.power_draw_w is not None:
        parts.append(
            f"{smi.power_draw_w:,.0f}" + (f"/{smi.power_limit_w:,.0f}" if smi.power_limit_w is not None else "") + " W"
        )
    if smi.temperature_c is not None:
        parts.append(f"{smi.temperature_c:,.0f} C")
    return f" ({', '.join(parts)})" if parts else ""
