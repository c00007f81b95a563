"""What the verifier shares between its checks: the statuses, one checked figure and the report, and the
prediction and measurements with the lookups every check uses (``Findings``). (verify.py assembles the
checks: GPUs in verify_gpu.py, links in verify_links.py, jobs and the wall in verify_runs.py.)"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, computed_field

from configurator.engine.acceptance.collect import Measurements
from configurator.engine.acceptance.parse import LspciDevice, SmiGpu
from configurator.engine.acceptance.predict import AcceptancePrediction

Status = Literal["pass", "warn", "fail", "missing"]
# The report's overall result: "incomplete" when too little was measured to accept the machine (see
# VerifyReport.incomplete), whatever the measured figures say; a failed figure is "fail" all the same.
Result = Literal["pass", "warn", "fail", "incomplete"]

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

NOTHING_MEASURED = (
    "Nothing was measured: this report accepts nothing. Run the burn-in kit on the machine "
    "(configurator burnin) and verify its results folder."
)
# A failed figure is a machine the customer should not be asked to accept: the sign-off keeps the shop's lines
FAILED_NOT_ACCEPTED = (
    "Not ready for acceptance: at least one figure failed. Fix its cause, run the burn-in kit again and verify "
    "the new results; the customer signs a report that passes."
)


# A result is an acceptance only when the cards themselves were read (nvidia-smi: name, memory, power limit: the
# machine holds what was sold) and at least half of the figures were measured: one wall reading among 20 unmeasured
# figures passed as "PASS" (review2 cli finding 5). The half is a plain majority, not a fitted threshold.
REQUIRED_CATEGORY = "identity"
MEASURED_SHARE_MIN = 0.5
INCOMPLETE = (
    "Incomplete: {why}. This report accepts nothing yet: run the burn-in kit with the missing tools (its "
    "report.txt says which) and verify the new results."
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
    def nothing_measured(self) -> bool:
        """No figure was measured (every check missing): not an acceptance, whatever else the report says."""
        return all(c.status == "missing" for c in self.checks)

    @property
    def incomplete(self) -> str | None:
        """Why too little was measured to accept the machine, or None: a card whose identity (nvidia-smi) was
        never read, or fewer than MEASURED_SHARE_MIN of the figures measured."""
        if not self.checks:
            return None
        measured = len(self.checks) - self.count("missing")
        unread = [c.figure for c in self.checks if c.category == REQUIRED_CATEGORY and c.status == "missing"]
        if unread:
            cards = "card was" if len(unread) == 1 else "cards were"
            return f"{len(unread)} {cards} never read by nvidia-smi ({', '.join(unread)})"
        if measured < MEASURED_SHARE_MIN * len(self.checks):
            return f"only {measured} of {len(self.checks)} figures were measured"
        return None

    @computed_field  # type: ignore[prop-decorator]  # in --json too: a script reads the same result as the text
    @property
    def result(self) -> Result:
        """The overall result: "fail" when a measured figure failed, else "incomplete" when too little was
        measured (:attr:`incomplete`), else the worst measured status (pass or warn)."""
        if self.verdict == "fail":
            return "fail"
        if self.nothing_measured or self.incomplete:
            return "incomplete"
        return "warn" if self.verdict == "warn" else "pass"

    @property
    def not_accepted(self) -> str | None:
        """Why this report is no acceptance of the machine (NOTHING_MEASURED, FAILED_NOT_ACCEPTED, INCOMPLETE), or
        None: the one rule the text, the PDF's sign-off and the dialog follow."""
        if self.nothing_measured:
            return NOTHING_MEASURED
        if self.verdict == "fail":
            return FAILED_NOT_ACCEPTED
        why = self.incomplete
        return INCOMPLETE.format(why=why) if why else None

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


def norm_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", name.lower().replace("nvidia", "")).strip()


def same_card(expected: str, measured: str) -> bool:
    e, m = norm_name(expected), norm_name(measured)
    return bool(m) and (e == m or e.startswith(m) or m.startswith(e))  # nvidia-smi may truncate long names


def pct(measured: float, expected: float, unit: str, decimals: int = 1) -> str:
    """The difference from the prediction in the figure's unit and in per cent: '-3,121 W (-79 %)'."""
    amount = f"{measured - expected:+,.{decimals}f} {unit}"
    return f"{amount} ({(measured / expected - 1) * 100:+.0f} %)" if expected else amount


class Findings:
    """The prediction, the measurements and the checks found so far, with the lookups every check uses."""

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

