"""Measured against predicted: pass / warn / fail per figure, with the difference and the likely cause.

GPUs are matched to slots by index (PCI bus order, :data:`predict.ORDER_ASSUMPTION`) and checked by name,
memory and power limit, so a card in another slot or a lower-power card is named as such, and by the rate of a
large BF16 GEMM (the kit's probe), so a card capped, throttled or running hot is named too. Causes are read
from the other measurements: a link below its width (lspci), ACS redirect on a bridge (lspci ACSCtl), a PCIe
label where the prediction has NVLink (topo -m), a MIG mode left off (-lgip).
"""

from __future__ import annotations

import threading

from configurator.engine.acceptance.collect import Measurements
from configurator.engine.acceptance.findings import RANK, STATUSES, FigureCheck, Findings, Status, VerifyReport
from configurator.engine.acceptance.predict import AcceptancePrediction
from configurator.engine.acceptance.verify_compute import ComputeChecks
from configurator.engine.acceptance.verify_gpu import GpuChecks
from configurator.engine.acceptance.verify_links import LinkChecks
from configurator.engine.acceptance.verify_runs import RunChecks

__all__ = ["RANK", "STATUSES", "FigureCheck", "Status", "VerifyCancelled", "VerifyReport", "verify"]


class VerifyCancelled(Exception):
    """``verify``'s ``cancel`` was set: it stopped between two checks and made no report (a verdict on part of the
    checks would read as the machine's)."""


def verify(
    prediction: AcceptancePrediction, measurements: Measurements, cancel: threading.Event | None = None
) -> VerifyReport:
    """Every figure checked; ``cancel`` set stops before the next GPU, link group or job with
    :class:`VerifyCancelled` (a job's checks scan every DCGM sample: a large export takes seconds per job)."""

    def go_on() -> None:
        if cancel is not None and cancel.is_set():
            raise VerifyCancelled("verification cancelled")

    v = Findings(prediction, measurements)
    gpus, compute, links, runs = GpuChecks(v), ComputeChecks(v), LinkChecks(v), RunChecks(v)
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
        go_on()
        gpus.identity(e)
        gpus.pcie(e)
        gpus.mig(e)
        compute.gemm(e)  # before the jobs: a slow step on a card that computes at its rate is named as such
    go_on()
    links.topology()
    links.acs()
    for n in prediction.nccl:
        go_on()
        links.nccl(n)
    for j in prediction.jobs:
        go_on()
        runs.job(j)
    runs.wall()
    go_on()
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
