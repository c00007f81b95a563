"""Measured against predicted: pass / warn / fail per figure, with the difference and the likely cause.

GPUs are matched to slots by index (PCI bus order, :data:`predict.ORDER_ASSUMPTION`) and checked by name,
memory and power limit, so a card in another slot or a lower-power card is named as such. Causes are read
from the other measurements: a link below its width (lspci), ACS redirect on a bridge (lspci ACSCtl), a PCIe
label where the prediction has NVLink (topo -m), a MIG mode left off (-lgip).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

from configurator.catalog.units import GB, MIB
from configurator.engine.acceptance import tolerances as tol
from configurator.engine.acceptance.collect import Measurements
from configurator.engine.acceptance.parse import LspciDevice, NcclRun, SmiGpu
from configurator.engine.acceptance.predict import AcceptancePrediction, GpuExpect, JobExpect, NcclExpect

Status = Literal["pass", "warn", "fail", "missing"]
RANK: dict[str, int] = {"pass": 0, "missing": 1, "warn": 2, "fail": 3}
STATUSES: tuple[Status, ...] = ("pass", "missing", "warn", "fail")
ACS_SOURCE = (
    "NCCL troubleshooting guide, 'PCI Access Control Services (ACS)': with ACS on, P2P is redirected "
    "through the root complex; check ACSCtl in lspci -vvv"
)
P2P_HINT = (
    "P2P disabled or slowed: ACS enabled on a PCIe switch or the IOMMU on (NCCL: bare-metal P2P does not "
    "work with IOMMU enabled), or NCCL's channels untuned; check `nvidia-smi topo -p2p r` and lspci ACSCtl"
)


class FigureCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    category: str  # identity, memory, power limit, pcie, topology, acs, mig, nccl, job memory, job speed, wall
    figure: str
    status: Status
    expected: str
    measured: str | None = None
    difference: str | None = None
    cause: str | None = None
    source: str = ""
    slot: int | None = None
    slots: list[int] = []  # every slot a figure between cards concerns (a link, an nccl group)
    gpu: int | None = None
    job: str | None = None
    value: float | None = None  # the measured number where there is one (charts draw it)


class VerifyReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    build_name: str
    build_digest: str
    checks: list[FigureCheck] = []
    files: list[str] = []
    problems: list[str] = []  # files that could not be read or parsed
    unknown: list[str] = []
    versions: dict[str, str] = {}
    kit_report: str | None = None
    stored: dict[str, list[str]] = {}  # per job, earlier measurements of this machine (measured_store), for the record

    def count(self, status: Status) -> int:
        return sum(1 for c in self.checks if c.status == status)

    @property
    def verdict(self) -> Status:
        worst = max((RANK[c.status] for c in self.checks if c.status != "missing"), default=1)
        return next(s for s in STATUSES if RANK[s] == worst)

    def slot_status(self, slot: int) -> Status | None:
        mine = [c for c in self.checks if (c.slot == slot or slot in c.slots) and c.status != "missing"]
        if not mine:
            return None
        return max((c.status for c in mine), key=lambda s: RANK[s])

    def job_measured(self, job: str, category: str) -> float | None:
        return next((c.value for c in self.checks if c.job == job and c.category == category and c.value), None)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", name.lower().replace("nvidia", "")).strip()


def _same_card(expected: str, measured: str) -> bool:
    e, m = _norm(expected), _norm(measured)
    return bool(m) and (e == m or e.startswith(m) or m.startswith(e))  # nvidia-smi may truncate long names


def _pct(measured: float, expected: float) -> str:
    return f"{measured - expected:+,.1f} ({(measured / expected - 1) * 100:+.0f} %)" if expected else f"{measured:,.1f}"


class _Verifier:
    def __init__(self, pred: AcceptancePrediction, m: Measurements) -> None:
        self.p, self.m = pred, m
        self.out: list[FigureCheck] = []
        self.by_bus = {d.bus_id: d for d in m.lspci}
        self.acs_on = [d for d in m.lspci if d.is_bridge and d.acs_redirect]

    def add(self, **kw: object) -> None:
        self.out.append(FigureCheck.model_validate(kw))

    def lspci_of(self, gpu: SmiGpu | None, index: int) -> LspciDevice | None:
        if gpu is not None and gpu.bus_id in self.by_bus:
            return self.by_bus[gpu.bus_id]
        gpus = [d for d in self.m.lspci if d.is_nvidia_gpu]
        return gpus[index] if gpu is None and index < len(gpus) else None

    def measured_gpu(self, index: int) -> SmiGpu | None:
        return next((g for g in self.m.gpus if g.index == index), None)

    # ---- per GPU -------------------------------------------------------------------------------------------
    def identity(self, e: GpuExpect) -> None:
        g = self.measured_gpu(e.index)
        common = {"slot": e.slot, "gpu": e.index}
        if not self.m.gpus:
            self.add(
                category="identity",
                figure=f"GPU{e.index} card",
                status="missing",
                expected=e.name,
                cause="no nvidia-smi --query-gpu / -q output",
                source="nvidia-smi",
                **common,
            )
            return
        if g is None:
            self.add(
                category="identity",
                figure=f"GPU{e.index} card",
                status="fail",
                expected=e.name,
                measured=f"{len(self.m.gpus)} GPU(s) seen",
                cause=(
                    f"GPU{e.index} (slot {e.slot}) not seen by the "
                    "driver: card not seated, no power cable, or fallen off the bus (check dmesg for Xid 79)"
                ),
                source="nvidia-smi",
                **common,
            )
            return
        if not _same_card(e.name, g.name):
            lower = g.power_max_limit_w is not None and e.power_limit_w and g.power_max_limit_w < e.power_limit_w * 0.95
            planned = [x.name for x in self.p.gpus]
            swapped = sorted(map(_norm, planned)) == sorted(_norm(o.name) for o in self.m.gpus)
            home = next(
                (
                    x
                    for x in self.p.gpus
                    if _same_card(x.name, g.name) and not _same_card(x.name, (self.measured_gpu(x.index) or g).name)
                ),
                None,
            )
            cause = (
                f"card in the wrong slot: this {g.name} is planned for slot {home.slot}, and the {e.name} "
                "planned here is in another slot"
                if swapped and home is not None
                else f"a lower-power card (its maximum limit is {g.power_max_limit_w:.0f} W)"
                if lower
                else "another card than the build's"
            )
            self.add(
                category="identity",
                figure=f"GPU{e.index} card",
                status="fail",
                expected=e.name,
                measured=g.name,
                cause=cause,
                source="nvidia-smi name",
                **common,
            )
        else:
            self.add(
                category="identity",
                figure=f"GPU{e.index} card",
                status="pass",
                expected=e.name,
                measured=g.name,
                source="nvidia-smi name",
                **common,
            )
        if e.memory_total_mib and g.memory_total_mib is not None:
            ok = abs(g.memory_total_mib / e.memory_total_mib - 1) <= tol.MEMORY_TOTAL_TOLERANCE
            mig_on = (g.mig_mode or "").lower().startswith("enabled")
            self.add(
                category="memory",
                figure=f"GPU{e.index} nvidia-smi total memory",
                status="pass" if ok else ("warn" if mig_on else "fail"),
                expected=f"{e.memory_total_mib:,.0f} MiB",
                measured=f"{g.memory_total_mib:,.0f} MiB",
                difference=_pct(g.memory_total_mib, e.memory_total_mib),
                cause=None
                if ok
                else (
                    "MIG mode on: the total excludes MIG's reserve"
                    if mig_on
                    else "another memory size: another card, or ECC changed"
                ),
                source=f"{e.memory_source[:160]}; tolerance {tol.MEMORY_TOTAL_TOLERANCE:.0%} (driver drift)",
                value=g.memory_total_mib,
                **common,
            )
        if e.power_limit_w and g.power_limit_w is not None:
            low = g.power_limit_w < e.power_limit_w * 0.95
            capped = g.power_max_limit_w is not None and g.power_max_limit_w < e.power_limit_w * 0.95
            self.add(
                category="power limit",
                figure=f"GPU{e.index} power limit",
                status="fail" if capped else ("warn" if low else "pass"),
                expected=f"{e.power_limit_w:,.0f} W",
                measured=f"{g.power_limit_w:,.0f} W",
                difference=_pct(g.power_limit_w, e.power_limit_w),
                cause=(
                    "a lower-power card: its maximum limit is below the build's"
                    if capped
                    else "power limit set lower (nvidia-smi -pl) or a BMC power cap"
                    if low
                    else None
                ),
                source="build power_limit_w or the card's default (catalog)",
                value=g.power_limit_w,
                **common,
            )

    def pcie(self, e: GpuExpect) -> None:
        g = self.measured_gpu(e.index)
        d = self.lspci_of(g, e.index)
        width = (d.sta_width if d else None) or (g.width_current if g else None)
        gen_now = (d.sta_gen if d else None) or (g.gen_current if g else None)
        gen_max = g.gen_max if g else None
        common = {"slot": e.slot, "gpu": e.index, "source": f"{e.pcie_source}; lspci -vv LnkSta"}
        expected = f"Gen{e.pcie_gen} x{e.pcie_width}"
        if width is None and gen_now is None:
            self.add(
                category="pcie",
                figure=f"GPU{e.index} PCIe link",
                status="missing",
                expected=expected,
                cause="no lspci -vv (as root) or nvidia-smi link fields",
                **common,
            )
            return
        measured = f"Gen{gen_now or '?'} x{width or '?'}" + (" (downgraded)" if d and d.downgraded else "")
        if width is not None and width < e.pcie_width:
            self.add(
                category="pcie",
                figure=f"GPU{e.index} PCIe link",
                status="fail",
                expected=expected,
                measured=measured,
                difference=f"x{width} of x{e.pcie_width}",
                cause=(
                    f"GPU at x{width}: reseat the card, check its riser or cable and the slot's bifurcation "
                    "setting in the BIOS; it halves the card's PCIe bandwidth"
                ),
                value=float(width),
                **common,
            )
            return
        gen = gen_now or 0
        if gen < e.pcie_gen:
            # GPUs lower the link speed when idle (LnkSta 'downgraded'); the GPU's own maximum says what it can do
            if gen_max is not None and gen_max >= e.pcie_gen:
                self.add(
                    category="pcie",
                    figure=f"GPU{e.index} PCIe link",
                    status="pass",
                    expected=expected,
                    measured=f"{measured}, max Gen{gen_max}",
                    cause="reads lower at idle (power saving); nvidia-smi's pcie.link.gen.max is as planned",
                    value=float(width or 0),
                    **common,
                )
            else:
                self.add(
                    category="pcie",
                    figure=f"GPU{e.index} PCIe link",
                    status="fail",
                    expected=expected,
                    measured=measured,
                    difference=f"Gen{gen} of Gen{e.pcie_gen}",
                    cause=(
                        "link trained at a lower generation: slot or riser set lower in the BIOS, or a "
                        "riser/cable not rated for this generation"
                    ),
                    value=float(width or 0),
                    **common,
                )
            return
        self.add(
            category="pcie",
            figure=f"GPU{e.index} PCIe link",
            status="pass",
            expected=expected,
            measured=measured,
            value=float(width or 0),
            **common,
        )

    def mig(self, e: GpuExpect) -> None:
        if not e.mig_profiles:
            return
        profiles = {p.name: p for p in self.m.lgip.get(e.index, [])}
        common = {"slot": e.slot, "gpu": e.index, "source": e.mig_profiles[0].source[:160]}
        if not profiles:
            if e.mig_layout:
                status: Status = "fail" if self.m.lgip_mig_off else "missing"
                self.add(
                    category="mig",
                    figure=f"GPU{e.index} MIG profiles",
                    status=status,
                    expected=", ".join(e.mig_layout),
                    measured="MIG off" if self.m.lgip_mig_off else None,
                    cause=(
                        f"MIG mode is off: sudo nvidia-smi -i {e.index} -mig 1, then reset the GPU"
                        if self.m.lgip_mig_off
                        else "no nvidia-smi mig -lgip output"
                    ),
                    **common,
                )
            return
        for want in dict.fromkeys(e.mig_layout or [p.name for p in e.mig_profiles]):
            exp = next((p for p in e.mig_profiles if p.name == want), None)
            got = profiles.get(want)
            if exp is None:
                continue
            if got is None:
                self.add(
                    category="mig",
                    figure=f"GPU{e.index} MIG {want}",
                    status="fail",
                    expected=f"{want}, {exp.instances_total} instance(s)",
                    measured="not listed",
                    cause="MIG profile missing: driver older than the card's MIG minimum, or another card",
                    **common,
                )
                continue
            mem_ok = exp.memory_gib is None or abs(got.memory_gib / exp.memory_gib - 1) <= tol.MIG_MEMORY_TOLERANCE
            ok = mem_ok and got.total == exp.instances_total
            self.add(
                category="mig",
                figure=f"GPU{e.index} MIG {want}",
                status="pass" if ok else "warn",
                expected=f"{exp.memory_gib} GiB, {exp.instances_total} instance(s)",
                measured=f"{got.memory_gib} GiB, {got.total} instance(s)",
                cause=None if ok else "another memory size or count than the catalog's (driver version?)",
                **common,
            )

    # ---- between GPUs --------------------------------------------------------------------------------------
    def topology(self) -> None:
        t = self.p.topology
        if t is None:
            return
        if self.m.topo is None:
            self.add(
                category="topology",
                figure="nvidia-smi topo -m",
                status="missing",
                expected="matrix",
                cause="no nvidia-smi topo -m output",
                source=t.source,
            )
            return
        for i, a in enumerate(t.gpus):
            for j, b in enumerate(t.gpus):
                if j <= i:
                    continue
                exp, got = t.matrix[i][j], self.m.topo.link(a, b)
                status, cause = _compare_link(exp, got)
                self.add(
                    category="topology",
                    figure=f"GPU{a}-GPU{b} link",
                    status=status,
                    expected=exp,
                    measured=got,
                    cause=cause,
                    slots=[t.slots[i], t.slots[j]],
                    gpu=b,
                    source=t.source,
                )

    def acs(self) -> None:
        if len(self.p.gpus) < 2:
            return
        if not self.m.lspci:
            self.add(
                category="acs",
                figure="ACS on PCIe bridges",
                status="missing",
                expected="off",
                cause="no lspci -vv output (run as root)",
                source=ACS_SOURCE,
            )
            return
        on = self.acs_on
        self.add(
            category="acs",
            figure="ACS on PCIe bridges",
            status="fail" if on else "pass",
            expected="off",
            measured=(f"redirect on at {len(on)} bridge(s): " + ", ".join(d.bus_id for d in on[:6])) if on else "off",
            cause=(
                "ACS enabled: P2P between GPUs goes through the root complex; disable ACS in the BIOS "
                "(or setpci ECAP_ACS+0x6.w=0000 per bridge) and keep the IOMMU off or in passthrough"
            )
            if on
            else None,
            source=ACS_SOURCE,
        )

    def nccl(self, e: NcclExpect) -> None:
        run = next((r for gpus, r, _ in self.m.nccl if gpus is not None and sorted(gpus) == sorted(e.gpus)), None)
        if run is None:
            run = self._nccl_by_bus(e)
        common = {"source": e.source, "slot": None, "gpu": None}
        expected = f">= {e.pass_min_gb_s:.1f} GB/s (typical {e.expected_busbw_gb_s:.1f}, {e.link})"
        if run is None:
            self.add(
                category="nccl",
                figure=f"all_reduce busbw, {e.name}",
                status="missing",
                expected=expected,
                cause="no all_reduce_perf output for these GPUs",
                **common,
            )
            return
        bw = run.busbw_gb_s
        status: Status = "pass" if bw >= e.pass_min_gb_s else ("warn" if bw >= e.warn_min_gb_s else "fail")
        cause = None
        if run.wrong:
            status, cause = "fail", f"{run.wrong} wrong value(s) in the #wrong column: data corruption, not speed"
        elif status != "pass":
            cause = self._nccl_cause(e)
        # the slots to mark: a member whose own link failed is the culprit; else a pair's two slots (a group's
        # slowness is not every member's fault)
        culprits = [
            c.slot
            for c in self.out
            if c.category == "pcie" and c.status == "fail" and c.gpu in e.gpus and c.slot is not None
        ]
        slots = culprits or (e.slots if len(e.slots) == 2 else [])
        self.add(
            category="nccl",
            figure=f"all_reduce busbw, {e.name}",
            status=status,
            expected=expected,
            measured=f"{bw:.1f} GB/s",
            difference=_pct(bw, e.expected_busbw_gb_s),
            cause=cause,
            value=bw,
            source=e.source,
            slots=slots if status != "pass" else e.slots,
        )

    def _nccl_by_bus(self, e: NcclExpect) -> NcclRun | None:
        buses = {g.bus_id: g.index for g in self.m.gpus if g.bus_id}
        for _, r, _ in self.m.nccl:
            idx = sorted(buses.get(b, -1) for b in r.bus_ids)
            if r.bus_ids and idx == sorted(e.gpus):
                return r
        return None

    def _nccl_cause(self, e: NcclExpect) -> str:
        causes = []
        for c in self.out:
            if c.category == "pcie" and c.status == "fail" and c.gpu in e.gpus:
                causes.append(f"GPU{c.gpu} link: {c.measured}")
        if e.link.startswith("NV") and self.m.topo is not None:
            pcie = [
                (a, b) for a in e.gpus for b in e.gpus if a < b and not (self.m.topo.link(a, b) or "").startswith("NV")
            ]
            if pcie:
                causes.append(
                    f"missing NVLink bridge: GPU{pcie[0][0]}-GPU{pcie[0][1]} shows "
                    f"{self.m.topo.link(*pcie[0])} in topo -m"
                )
        if self.acs_on:
            causes.append("ACS enabled on PCIe bridges (P2P through the root complex)")
        if not causes:
            causes.append(
                P2P_HINT
                if not e.link.startswith("NV")
                else "NVLink slower than expected: check `nvidia-smi nvlink -s` for links down"
            )
        return "; ".join(causes)

    # ---- jobs and power -------------------------------------------------------------------------------------
    def job(self, e: JobExpect) -> None:
        measured = next((j for out in self.m.measure for j in out.jobs if j.name == e.name), None)
        common = {"job": e.name, "slot": e.slots[0] if e.slots else None}
        band = f"{e.nvidia_smi_gb:.1f} GB ({e.nvidia_smi_low_gb:.1f}-{e.nvidia_smi_high_gb:.1f})"
        # DCGM frame buffer used: the whole GPU's for a job on whole cards; for a job in a MIG instance, the
        # instances of its profile on its GPU (seed B: "DCGM_FI_DEV_FB_USED per instance")
        fb = [
            s.fb_used_mib
            for s in self.m.dcgm
            if s.gpu in e.gpus and s.fb_used_mib is not None and (s.profile == e.mig if e.mig else s.instance is None)
        ]
        if measured is not None and measured.status == "oom":
            self.add(
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
            self.add(
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
            )
        else:
            self.add(
                category="job speed",
                figure=f"{e.name}: step time",
                status="missing",
                expected=f"{e.step_seconds:.2f} s",
                cause="no measurement of this job",
                source=e.step_source,
                **common,
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
    ) -> None:
        if low <= got <= high:
            status: Status = "pass"
            cause = None
        elif got > high:
            status = "warn"
            cause = (
                "slower than the band: GPU clocks or power capped, a slower link, or the step model's error"
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
        self.add(
            category=category,
            figure=figure,
            status=status,
            expected=f"{exp:,.2f} {unit} ({low:,.2f}-{high:,.2f})",
            measured=f"{got:,.2f} {unit}",
            difference=_pct(got, exp),
            cause=cause,
            source=source,
            value=got,
            **common,
        )

    def wall(self) -> None:
        pw = self.p.power
        if pw is None:
            return
        if self.m.wall_w is None:
            self.add(
                category="wall",
                figure="wall draw under load",
                status="missing",
                expected=f"<= {pw.wall_max_w:,.0f} W (predicted {pw.wall_w:,.0f} W)",
                cause="write the meter's reading during nccl-tests / the jobs into wall-meter.txt ('3480 W')",
                source=pw.source,
            )
            return
        w = self.m.wall_w
        self.add(
            category="wall",
            figure="wall draw under load",
            status="pass" if w <= pw.wall_max_w else "fail",
            expected=f"<= {pw.wall_max_w:,.0f} W (predicted {pw.wall_w:,.0f} W)",
            measured=f"{w:,.0f} W",
            difference=_pct(w, pw.wall_w),
            value=w,
            source=pw.source,
            cause=None
            if w <= pw.wall_max_w
            else "more than the power budget: platform draws more than its "
            "allowance, or cards above their limits; re-check the PSU and circuit",
        )


def _family(label: str) -> str:
    return {"PHB": "NODE"}.get(label, label)


def _compare_link(exp: str, got: str | None) -> tuple[Status, str | None]:
    if got is None:
        return "fail", "GPU missing from topo -m"
    if exp == got:
        return "pass", None
    if exp.startswith("NV"):
        if got.startswith("NV"):
            return "warn", f"NVLink with {got[2:]} links instead of {exp[2:]}: another bridge than planned?"
        return "fail", "missing NVLink bridge (or not seated): the pair talks over PCIe"
    if got.startswith("NV"):
        return "warn", "NVLink where none was planned"
    if _family(exp) == _family(got):
        return "pass", "PHB and NODE both mean through the CPU's root complex"
    if {exp, got} == {"PIX", "PXB"}:
        return "warn", "the switch shows as more bridges than planned; same switch tree"
    return "fail", (
        f"{got} where {exp} was planned: the card is in another slot or under another switch/CPU than the build's"
    )


def verify(prediction: AcceptancePrediction, measurements: Measurements) -> VerifyReport:
    v = _Verifier(prediction, measurements)
    extra = len(measurements.gpus) - len(prediction.gpus)
    if measurements.gpus and extra > 0:
        v.add(
            category="identity",
            figure="GPU count",
            status="warn",
            expected=str(len(prediction.gpus)),
            measured=str(len(measurements.gpus)),
            source="nvidia-smi",
            cause=f"{extra} GPU(s) more than the build: another machine's results, or cards the build leaves out",
        )
    for e in prediction.gpus:
        v.identity(e)
        v.pcie(e)
        v.mig(e)
    v.topology()
    v.acs()
    for n in prediction.nccl:
        v.nccl(n)
    for j in prediction.jobs:
        v.job(j)
    v.wall()
    versions: dict[str, str] = {}
    if measurements.driver:
        versions["driver"] = measurements.driver
    for out in measurements.measure:
        versions.update({k: str(val) for k, val in out.versions.items() if val})
    return VerifyReport(
        build_name=prediction.build_name,
        build_digest=prediction.build_digest,
        checks=v.out,
        files=measurements.files,
        problems=measurements.problems,
        unknown=measurements.unknown,
        versions=versions,
        kit_report=measurements.kit_report,
        stored={j.name: j.measured_here for j in prediction.jobs if j.measured_here},
    )
