"""Per GPU: identity (name, memory, power limit), its PCIe link, its MIG layout."""

from __future__ import annotations

from configurator.engine.acceptance import tolerances as tol
from configurator.engine.acceptance.findings import (
    Findings,
    Status,
    norm_name,
    pct,
    same_card,
)
from configurator.engine.acceptance.predict import GpuExpect


class GpuChecks:
    """Per GPU: identity (name, memory, power limit), its PCIe link, its MIG layout."""

    def __init__(self, findings: Findings) -> None:
        self.f = findings

    # ---- per GPU -------------------------------------------------------------------------------------------
    def identity(self, e: GpuExpect) -> None:
        g = self.f.measured_gpu(e.index)
        common = {"slot": e.slot, "gpu": e.index}
        if not self.f.m.gpus:
            self.f.add(
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
            self.f.add(
                category="identity",
                figure=f"GPU{e.index} card",
                status="fail",
                expected=e.name,
                measured=f"{len(self.f.m.gpus)} GPU(s) seen",
                cause=(
                    f"GPU{e.index} (slot {e.slot}) not seen by the "
                    "driver: card not seated, no power cable, or fallen off the bus (check dmesg for Xid 79)"
                ),
                source="nvidia-smi",
                **common,
            )
            return
        if not same_card(e.name, g.name):
            floor = (e.power_limit_w or 0.0) * tol.POWER_LIMIT_MATCH_FRACTION
            lower = g.power_max_limit_w is not None and e.power_limit_w and g.power_max_limit_w < floor
            planned = [x.name for x in self.f.p.gpus]
            swapped = sorted(map(norm_name, planned)) == sorted(norm_name(o.name) for o in self.f.m.gpus)
            home = next(
                (
                    x
                    for x in self.f.p.gpus
                    if same_card(x.name, g.name) and not same_card(x.name, (self.f.measured_gpu(x.index) or g).name)
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
            self.f.add(
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
            self.f.add(
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
            self.f.add(
                category="memory",
                figure=f"GPU{e.index} nvidia-smi total memory",
                status="pass" if ok else ("warn" if mig_on else "fail"),
                expected=f"{e.memory_total_mib:,.0f} MiB",
                measured=f"{g.memory_total_mib:,.0f} MiB",
                difference=pct(g.memory_total_mib, e.memory_total_mib, "MiB", 0),
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
            floor = e.power_limit_w * tol.POWER_LIMIT_MATCH_FRACTION
            low = g.power_limit_w < floor
            capped = g.power_max_limit_w is not None and g.power_max_limit_w < floor
            self.f.add(
                category="power limit",
                figure=f"GPU{e.index} power limit",
                status="fail" if capped else ("warn" if low else "pass"),
                expected=f"{e.power_limit_w:,.0f} W",
                measured=f"{g.power_limit_w:,.0f} W",
                difference=pct(g.power_limit_w, e.power_limit_w, "W", 0),
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
        g = self.f.measured_gpu(e.index)
        d = self.f.lspci_of(g, e.index)
        width = (d.sta_width if d else None) or (g.width_current if g else None)
        gen_now = (d.sta_gen if d else None) or (g.gen_current if g else None)
        gen_max = g.gen_max if g else None
        common = {"slot": e.slot, "gpu": e.index, "source": f"{e.pcie_source}; lspci -vv LnkSta"}
        expected = f"Gen{e.pcie_gen} x{e.pcie_width}"
        if width is None and gen_now is None:
            self.f.add(
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
            self.f.add(
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
                self.f.add(
                    category="pcie",
                    figure=f"GPU{e.index} PCIe link",
                    status="pass",
                    expected=expected,
                    # lspci's "(downgraded)" beside a PASS read as a fault (review2 cli 18): say why it reads lower
                    measured=f"Gen{gen_now or '?'} x{width or '?'} now (idle power saving), capable Gen{gen_max} "
                    f"x{width or '?'}",
                    cause="reads lower at idle (power saving); nvidia-smi's pcie.link.gen.max is as planned",
                    value=float(width or 0),
                    **common,
                )
            else:
                self.f.add(
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
        self.f.add(
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
        profiles = {p.name: p for p in self.f.m.lgip.get(e.index, [])}
        common = {"slot": e.slot, "gpu": e.index, "source": e.mig_profiles[0].source[:160]}
        if not profiles:
            if e.mig_layout:
                status: Status = "fail" if self.f.m.lgip_mig_off else "missing"
                self.f.add(
                    category="mig",
                    figure=f"GPU{e.index} MIG profiles",
                    status=status,
                    expected=", ".join(e.mig_layout),
                    measured="MIG off" if self.f.m.lgip_mig_off else None,
                    cause=(
                        f"MIG mode is off: sudo nvidia-smi -i {e.index} -mig 1, then reset the GPU"
                        if self.f.m.lgip_mig_off
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
                self.f.add(
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
            self.f.add(
                category="mig",
                figure=f"GPU{e.index} MIG {want}",
                status="pass" if ok else "warn",
                expected=f"{exp.memory_gib} GiB, {exp.instances_total} instance(s)",
                measured=f"{got.memory_gib} GiB, {got.total} instance(s)",
                cause=None if ok else "another memory size or count than the catalog's (driver version?)",
                **common,
            )

    # ---- between GPUs --------------------------------------------------------------------------------------
