"""``nvidia-smi topo -m``: the GPU-to-GPU connection matrix.

Format (nvidia-smi's topology matrix): a header row of column names (``GPU0 GPU1 ... NIC0 ... CPU Affinity
NUMA Affinity GPU NUMA ID``), then one row per device starting with its name, cells ``X``, ``NV#``, ``PIX``,
``PXB``, ``PHB``, ``NODE``, ``SYS``, then a ``Legend:``. Newer drivers underline the header with ANSI codes
and add NIC rows and a ``NIC Legend``; both are tolerated. Only the GPU-by-GPU block is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from configurator.engine.acceptance.parse.common import ParseError, clean_text

_CELL = re.compile(r"^(X|NV\d{1,3}|PIX|PXB|PHB|NODE|SYS|SOC)$")
_GPU = re.compile(r"^GPU(\d{1,3})$")


@dataclass(frozen=True)
class TopoMatrix:
    gpus: list[int]  # GPU indices in the order printed
    cells: dict[tuple[int, int], str]  # (gpu a, gpu b) -> label, both orders

    def link(self, a: int, b: int) -> str | None:
        return self.cells.get((a, b))


def parse_topo(text: str) -> TopoMatrix:
    lines = clean_text(text, "nvidia-smi topo -m")
    header: list[str] | None = None
    rows: dict[int, list[str]] = {}
    for line in lines:
        words = line.split()
        if not words:
            continue
        if words[0].lower().startswith("legend"):
            break
        if header is None:
            if _GPU.match(words[0]) and (len(words) == 1 or not _CELL.match(words[1])):
                header = words
            continue
        m = _GPU.match(words[0])
        if m:
            rows[int(m.group(1))] = words[1:]
    if header is None:
        raise ParseError(
            "nvidia-smi topo -m: no header row naming GPU0, GPU1, ... was found; save the whole output "
            "of `nvidia-smi topo -m`"
        )
    cols = [int(m.group(1)) for w in header if (m := _GPU.match(w))]
    if not rows:
        if len(cols) == 1:
            return TopoMatrix([cols[0]], {})
        raise ParseError("nvidia-smi topo -m: a header but no GPU rows")
    cells: dict[tuple[int, int], str] = {}
    for gpu, words in rows.items():
        for j, col in enumerate(cols):
            if j >= len(words):
                raise ParseError(f"nvidia-smi topo -m: row GPU{gpu} has {len(words)} cells for {len(cols)} GPU columns")
            cell = words[j]
            if not _CELL.match(cell):
                raise ParseError(
                    f"nvidia-smi topo -m: row GPU{gpu}, column GPU{col}: '{cell[:20]}' is not a link "
                    "label (X, NV#, PIX, PXB, PHB, NODE, SYS)"
                )
            if gpu != col:
                cells[(gpu, col)] = cell
    return TopoMatrix(sorted(rows), cells)
