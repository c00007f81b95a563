"""DCGM exports: frame-buffer used (DCGM_FI_DEV_FB_USED, field 252, MiB) and SM activity
(DCGM_FI_PROF_SM_ACTIVE, field 1002, a 0-1 ratio) per GPU or MIG instance.

Three forms are read (DCGM documentation, "dcgmi dmon" and "dcgm-exporter"):

* ``dcgmi dmon -e 252,1002``: a ``#Entity  FBUSD  SMACT`` header (the fields' short names), an ``ID`` line, then
  rows ``GPU 0  1024  0.812`` (``GPU-I 3`` for a MIG instance; ``N/A`` where a field is blank);
* dcgm-exporter's Prometheus text: ``DCGM_FI_DEV_FB_USED{gpu="0",...,GPU_I_ID="1"} 1024``;
* CSV with a header naming ``gpu`` (or ``entity``) and DCGM_FI_DEV_FB_USED / DCGM_FI_PROF_SM_ACTIVE columns.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from configurator.engine.acceptance.parse.common import ParseError, clean_text, number

_SHORT = {"FBUSD": "fb", "SMACT": "sm", "DCGM_FI_DEV_FB_USED": "fb", "DCGM_FI_PROF_SM_ACTIVE": "sm"}
_PROM = re.compile(r"^(DCGM_FI_DEV_FB_USED|DCGM_FI_PROF_SM_ACTIVE)\{(.{0,2000})\}\s+(\S{1,40})")
_LABEL = re.compile(r'(\w{1,40})="([^"]{0,200})"')


@dataclass(frozen=True)
class DcgmSample:
    gpu: int  # GPU index (dmon: the entity id of a GPU row; for GPU-I rows the instance's entity id)
    instance: int | None  # MIG GPU instance id, None for a whole GPU
    fb_used_mib: float | None
    sm_active: float | None
    profile: str | None = None  # the MIG instance's profile (dcgm-exporter's GPU_I_PROFILE label), e.g. 1g.24gb


def _value(text: str) -> float | None:
    v = number(text)
    # DCGM's blank values (DCGM_INT64_BLANK 0x7ffffffffffffff0, DCGM_FP64_BLANK 2**47 and up) mean "no data"
    return None if v is None or v >= 2**47 else v


def parse_dcgm(text: str) -> list[DcgmSample]:
    lines = clean_text(text, "DCGM export")
    if any(_PROM.match(ln.strip()) for ln in lines[:5000]):
        return _prometheus(lines)
    first = next((ln for ln in lines if ln.strip()), "")
    # dmon's header line, after any comment a saved file starts with ("# dcgmi dmon -e 1002,252 ...")
    if any(ln.lstrip().startswith(("#Entity", "# Entity")) for ln in lines[:50]):
        return _dmon(lines)
    if "," in first and ("DCGM_FI" in first.upper() or "FBUSD" in first.upper()):
        return _csv(lines)
    raise ParseError(
        "DCGM export: not `dcgmi dmon -e 252,1002` output (#Entity header), dcgm-exporter metrics "
        "(DCGM_FI_DEV_FB_USED{...}) or a CSV naming DCGM_FI_DEV_FB_USED"
    )


def _dmon(lines: list[str]) -> list[DcgmSample]:
    header: list[str] | None = None
    out: list[DcgmSample] = []
    for line in lines:
        s = line.strip()
        if s.startswith("#"):
            header = [_SHORT.get(w.upper(), "") for w in s.lstrip("#").split()[1:]]
            if s.lstrip("#").strip().lower().startswith("entity") and header[:1] == [""]:
                header = header[1:]  # "# Entity" written as two words
            continue
        if not s or s == "ID" or header is None:
            continue
        words = s.split()
        if len(words) < 2 or words[0] not in ("GPU", "GPU-I", "GPU-CI"):
            continue
        try:
            ent = int(words[1])
        except ValueError:
            continue
        vals = dict(zip(header, words[2:], strict=False))
        inst = ent if words[0] != "GPU" else None
        out.append(
            DcgmSample(ent if inst is None else -1, inst, _value(vals.get("fb", "")), _value(vals.get("sm", "")))
        )
    if not out:
        raise ParseError("dcgmi dmon: a header but no 'GPU n ...' rows")
    return out


def _prometheus(lines: list[str]) -> list[DcgmSample]:
    """One sample per GPU or instance and scrape: a file of several scrapes keeps each (the planner averages a
    class's SM_ACTIVE over them); the k-th FB_USED and SM_ACTIVE values of an entity share its k-th sample."""
    values: dict[tuple[int, int | None], dict[str, list[float | None]]] = {}
    profiles: dict[tuple[int, int | None], str] = {}
    for line in lines:
        m = _PROM.match(line.strip())
        if not m:
            continue
        labels = dict(_LABEL.findall(m.group(2)))
        try:
            gpu = int(labels.get("gpu", ""))
        except ValueError:
            continue
        inst_text = labels.get("GPU_I_ID", "")
        inst = int(inst_text) if inst_text.isdigit() else None
        key = "fb" if m.group(1).endswith("FB_USED") else "sm"
        values.setdefault((gpu, inst), {}).setdefault(key, []).append(_value(m.group(3)))
        if labels.get("GPU_I_PROFILE"):
            profiles[(gpu, inst)] = labels["GPU_I_PROFILE"][:40]
    out: list[DcgmSample] = []
    for (g, i), v in sorted(values.items(), key=lambda kv: (kv[0][0], kv[0][1] or -1)):
        fb, sm = v.get("fb", []), v.get("sm", [])
        for k in range(max(len(fb), len(sm))):
            out.append(DcgmSample(g, i, _nth(fb, k), _nth(sm, k), profiles.get((g, i))))
    return out


def _nth(values: list[float | None], k: int) -> float | None:
    return values[k] if k < len(values) else None


def _csv(lines: list[str]) -> list[DcgmSample]:
    try:
        rows = list(csv.reader(io.StringIO("\n".join(ln for ln in lines if ln.strip())), skipinitialspace=True))
    except csv.Error as exc:
        raise ParseError(f"DCGM CSV: not CSV ({exc})") from None
    head = [h.strip() for h in rows[0]]
    keys = [_SHORT.get(h.upper(), h.lower()) for h in head]
    gpu_col = next((i for i, k in enumerate(keys) if k in ("gpu", "entity", "entityid", "gpu_id")), None)
    if gpu_col is None:
        raise ParseError("DCGM CSV: no 'gpu' column to say which GPU a value belongs to")
    out: list[DcgmSample] = []
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(head):
            raise ParseError(f"DCGM CSV line {n}: {len(row)} fields for {len(head)} names")
        vals = dict(zip(keys, row, strict=True))
        g = number(row[gpu_col].replace("GPU", ""))
        if g is None:
            raise ParseError(f"DCGM CSV line {n}: gpu '{row[gpu_col][:20]}' is not a number")
        inst = number(vals.get("gpu_i_id", "") or "")
        out.append(
            DcgmSample(
                int(g), int(inst) if inst is not None else None, _value(vals.get("fb", "")), _value(vals.get("sm", ""))
            )
        )
    if not out:
        raise ParseError("DCGM CSV: a header but no rows")
    return out
