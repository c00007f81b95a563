"""Measured against predicted: pass / warn / fail per figure, with the difference and the likely cause.

GPUs are matched to slots by index (PCI bus order, :data:`predict.ORDER_ASSUMPTION`) and checked by name,
memory and power limit, so a card in another slot or a lower-power card is named as such. Causes are read
from the other measurements: a link below its width (lspci), ACS redirect on a bridge (lspci ACSCtl), a PCIe
label where the prediction has NVLink (topo -m), a MIG mode left off (-lgip).
"""

from __future__ import annotations

from configurator.engine.acceptance.collect import Measurements
from configurator.engine.acceptance.findings import RANK, STATUSES, FigureCheck, Findings, Status, VerifyReport
from configurator.engine.acceptance.predict import AcceptancePrediction
from configurator.engine.acceptance.verify_gpu import GpuChecks
from configurator.engine.acceptance.verify_links import LinkChecks
from configurator.engine.acceptance.verify_runs import RunChecks

__all__ = ["RANK", "STATUSES", "FigureCheck", "Status", "VerifyReport", "verify"]


def verify(prediction: AcceptancePrediction, measurements: Measurements) -> VerifyReport:
    v = Findings(prediction, measurements)
    gpus, links, runs = GpuChecks(v), LinkChecks(v), RunChecks(v)
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
        gpus.identity(e)
        gpus.pcie(e)
        gpus.mig(e)
    links.topology()
    links.acs()
    for n in prediction.nccl:
        links.nccl(n)
    for j in prediction.jobs:
        runs.job(j)
    runs.wall()
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
