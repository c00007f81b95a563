"""Between GPUs: topo -m against the planned links, ACS on the bridges, nccl-tests bus bandwidth."""

from __future__ import annotations

from configurator.engine.acceptance.findings import (
    ACS_SOURCE,
    P2P_HINT,
    Findings,
    Status,
    pct,
)
from configurator.engine.acceptance.parse import NcclRun
from configurator.engine.acceptance.predict import NcclExpect


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


class LinkChecks:
    """Between GPUs: topo -m against the planned links, ACS on the bridges, nccl-tests bus bandwidth."""

    def __init__(self, findings: Findings) -> None:
        self.f = findings

    def topology(self) -> None:
        t = self.f.p.topology
        if t is None:
            return
        if self.f.m.topo is None:
            self.f.add(
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
                exp, got = t.matrix[i][j], self.f.m.topo.link(a, b)
                status, cause = _compare_link(exp, got)
                self.f.add(
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
        if len(self.f.p.gpus) < 2:
            return
        if not self.f.m.lspci:
            self.f.add(
                category="acs",
                figure="ACS on PCIe bridges",
                status="missing",
                expected="off",
                cause="no lspci -vv output (run as root)",
                source=ACS_SOURCE,
            )
            return
        on = self.f.acs_on
        self.f.add(
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
        run = next((r for gpus, r, _ in self.f.m.nccl if gpus is not None and sorted(gpus) == sorted(e.gpus)), None)
        if run is None:
            run = self._nccl_by_bus(e)
        common = {"source": e.source, "slot": None, "gpu": None}
        expected = f">= {e.pass_min_gb_s:.1f} GB/s (typical {e.expected_busbw_gb_s:.1f}, {e.link})"
        if run is None:
            self.f.add(
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
            for c in self.f.out
            if c.category == "pcie" and c.status == "fail" and c.gpu in e.gpus and c.slot is not None
        ]
        slots = culprits or (e.slots if len(e.slots) == 2 else [])
        self.f.add(
            category="nccl",
            figure=f"all_reduce busbw, {e.name}",
            status=status,
            expected=expected,
            measured=f"{bw:.1f} GB/s",
            difference=pct(bw, e.expected_busbw_gb_s, "GB/s"),
            cause=cause,
            value=bw,
            source=e.source,
            slots=slots if status != "pass" else e.slots,
        )

    def _nccl_by_bus(self, e: NcclExpect) -> NcclRun | None:
        buses = {g.bus_id: g.index for g in self.f.m.gpus if g.bus_id}
        for _, r, _ in self.f.m.nccl:
            idx = sorted(buses.get(b, -1) for b in r.bus_ids)
            if r.bus_ids and idx == sorted(e.gpus):
                return r
        return None

    def _nccl_cause(self, e: NcclExpect) -> str:
        causes = []
        for c in self.f.out:
            if c.category == "pcie" and c.status == "fail" and c.gpu in e.gpus:
                causes.append(f"GPU{c.gpu} link: {c.measured}")
        if e.link.startswith("NV") and self.f.m.topo is not None:
            pcie = [
                (a, b)
                for a in e.gpus
                for b in e.gpus
                if a < b and not (self.f.m.topo.link(a, b) or "").startswith("NV")
            ]
            if pcie:
                causes.append(
                    f"missing NVLink bridge: GPU{pcie[0][0]}-GPU{pcie[0][1]} shows "
                    f"{self.f.m.topo.link(*pcie[0])} in topo -m"
                )
        if self.f.acs_on:
            causes.append("ACS enabled on PCIe bridges (P2P through the root complex)")
        if not causes:
            causes.append(
                P2P_HINT
                if not e.link.startswith("NV")
                else "NVLink slower than expected: check `nvidia-smi nvlink -s` for links down"
            )
        return "; ".join(causes)

    # ---- jobs and power -------------------------------------------------------------------------------------
