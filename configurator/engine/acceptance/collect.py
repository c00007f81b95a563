"""Read a shop's result files (or the burn-in kit's output folder) into :class:`Measurements`.

Each file is recognised by its content (``parse.detect``); a file that cannot be read or parsed becomes a
problem line naming it, never an exception, so one bad file does not hide the others.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import safe_read_text
from configurator.engine.acceptance.parse import (
    DcgmSample,
    GemmResult,
    LgipProfile,
    LspciDevice,
    MeasureOutput,
    NcclRun,
    ParseError,
    SmiGpu,
    TopoMatrix,
    detect,
    parse_dcgm,
    parse_gemm_json,
    parse_lgip,
    parse_lspci,
    parse_measure_json,
    parse_nccl,
    parse_query_csv,
    parse_smi_q,
    parse_topo,
)

# (files read, files in all, the file being read next); the window's progress bar follows it
CollectProgress = Callable[[int, int, str], None]
MAX_FILES = 2000  # a kit folder holds a few dozen; more is not a result folder
_GPUS_IN_NAME = re.compile(r"gpus?[-_]((?:\d{1,3}[-_,])*\d{1,3})")
_WALL = re.compile(r"(\d{2,6}(?:\.\d{1,3})?)\s*(?:W|Watts)\b", re.I)
# ipmitool dcmi power reading: "Instantaneous power reading:   3480 Watts" (the server's input power, via its BMC)
_IPMI = re.compile(r"Instantaneous power reading:\s*(\d{1,6})\s*Watts", re.I)
# how a wall reading is written (wall-meter.txt), in every hint: a placeholder, not a figure (an example in watts was
# above some builds' own fail limit, and a shop copying it would record a reading nobody took)
WALL_FORMAT = "'<watts> W'"
# what run.sh writes beside the results that holds no measurement: its versions record and measure.py's console log
# (the job's result is the .json next to it), and a failed step's stderr (.err, which report.txt names)
_KIT_RECORD = re.compile(r"versions\.txt|job-\d+\.log|.*\.err")
NOT_A_RESULT = (
    "not a result verify reads (nvidia-smi --query-gpu / -q / topo -m / mig -lgip, lspci -vv, nccl-tests, "
    "dcgmi dmon, the kit's measure.py or gemm_probe.py JSON, a wall reading)"
)


def wall_reading(text: str) -> float | None:
    """The highest input power in a wall file: ipmitool's instantaneous readings, else the numbers given in W."""
    ipmi = [float(v) for v in _IPMI.findall(text)]
    if ipmi:
        return max(ipmi)
    values = [float(v) for v in _WALL.findall(text)]
    return max(values) if values else None


@dataclass
class Measurements:
    topo: TopoMatrix | None = None
    gpus: list[SmiGpu] = field(default_factory=list)  # from --query-gpu CSV (preferred) or -q
    lgip: dict[int, list[LgipProfile]] = field(default_factory=dict)
    lgip_mig_off: bool = False
    lspci: list[LspciDevice] = field(default_factory=list)
    nccl: list[tuple[list[int] | None, NcclRun, str]] = field(default_factory=list)  # (GPU indices, run, file)
    dcgm: list[DcgmSample] = field(default_factory=list)
    measure: list[MeasureOutput] = field(default_factory=list)
    gemm: list[GemmResult] = field(default_factory=list)  # the kit's GEMM probe, one result per GPU run
    wall_w: float | None = None  # a wall-meter reading the shop wrote down (wall-meter.txt: "3480 W")
    kit_report: str | None = None  # the kit's own report of what it could not measure
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # files that could not be read, parsed or recognised
    unknown: list[str] = field(default_factory=list)  # of those, the ones no parser recognised

    @property
    def driver(self) -> str | None:
        return next((g.driver for g in self.gpus if g.driver), None)


def _files(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                out += [Path(root) / n for n in sorted(names) if not n.startswith(".")]
                if len(out) > MAX_FILES:
                    raise FileError(str(p), [])
        else:
            out.append(p)
    return out


def collect(paths: list[Path], on_progress: CollectProgress | None = None,
            cancel: threading.Event | None = None) -> Measurements:  # fmt: skip
    """``on_progress`` before each file and once at the end; ``cancel`` set stops before the next file (what was
    read so far comes back, incomplete: the caller that cancelled drops it)."""
    m = Measurements()
    try:
        files = _files(paths)
    except FileError as exc:
        m.problems.append(f"{exc.path}: more than {MAX_FILES} files; give the kit's output folder")
        return m
    for done, path in enumerate(files):
        if cancel is not None and cancel.is_set():
            return m
        if on_progress is not None:
            on_progress(done, len(files), str(path))
        name = path.name
        try:
            text = safe_read_text(path)
        except FileError as exc:
            m.problems.append(str(exc))
            continue
        if name.lower().startswith("wall"):
            watts = wall_reading(text)
            if watts is not None:
                m.wall_w = max(m.wall_w or 0.0, watts)
                m.files.append(str(path))
            else:
                m.problems.append(f"{path}: no wall reading such as {WALL_FORMAT}")
            continue
        if name == "report.txt":
            m.kit_report = text[:20000]
            continue
        kind = detect(text, name)
        try:
            _add(m, kind, text, path)
        except ParseError as exc:
            m.problems.append(f"{path}: {exc}")
    m.gpus.sort(key=lambda g: g.index)
    if on_progress is not None:
        on_progress(len(files), len(files), "")
    return m


def _add(m: Measurements, kind: str, text: str, path: Path) -> None:
    if kind == "unknown":
        # listed with the problems: a file the shop meant as a result that reads as nothing must not vanish from
        # the report (a folder of such files alone verified as "nothing measured" with no file named)
        if not _KIT_RECORD.fullmatch(path.name):
            m.unknown.append(str(path))
            m.problems.append(f"{path}: {NOT_A_RESULT}")
        return
    m.files.append(str(path))
    if kind == "topo":
        m.topo = parse_topo(text)
    elif kind == "query-csv":
        m.gpus = parse_query_csv(text)  # the CSV's fields win over -q's
    elif kind == "smi-q":
        gpus = parse_smi_q(text)
        if not m.gpus:
            m.gpus = gpus
    elif kind == "lgip":
        profiles, enabled = parse_lgip(text)
        m.lgip_mig_off = m.lgip_mig_off or not enabled
        for p in profiles:
            m.lgip.setdefault(p.gpu, []).append(p)
    elif kind == "lspci":
        m.lspci = parse_lspci(text)
    elif kind == "nccl":
        run = parse_nccl(text)
        g = _GPUS_IN_NAME.search(path.stem)
        indices: list[int] | None = [int(x) for x in re.split(r"[-_,]", g.group(1))] if g else None
        m.nccl.append((indices, run, str(path)))
    elif kind == "dcgm":
        m.dcgm += parse_dcgm(text)
    elif kind == "measure":
        m.measure.append(parse_measure_json(text))
    elif kind == "gemm":
        m.gemm += parse_gemm_json(text).gpus
