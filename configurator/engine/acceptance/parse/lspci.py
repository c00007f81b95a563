"""``lspci -vv``: each device's PCIe link capability and status, and ACS on bridges.

Format (pciutils ``lspci -vv``): a device line at column 0, ``41:00.0 3D controller: NVIDIA Corporation GH100
[H200 NVL] (rev a1)`` (``0000:41:00.0`` with ``-D``), then indented capability lines: ``LnkCap: Port #0, Speed
32GT/s, Width x16, ...``, ``LnkSta: Speed 32GT/s, Width x16`` (older pciutils add ``(ok)`` or
``(downgraded)``), and for bridges with Access Control Services ``ACSCtl: SrcValid+ TransBlk- ReqRedir+
CmpltRedir+ ...``. NCCL's troubleshooting guide (docs.nvidia.com/deeplearning/nccl/user-guide/docs/
troubleshooting.html, "PCI Access Control Services (ACS)") says P2P traffic is redirected through the root
complex when ACS is enabled on a switch, and to check ACSCtl in ``lspci -vvv``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from configurator.engine.acceptance.parse.common import ParseError, bus_id, clean_text

# PCIe transfer rate per lane -> generation (PCI-SIG: 2.5, 5, 8, 16, 32, 64 GT/s for Gen1..Gen6)
GT_S_TO_GEN = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
_DEVICE = re.compile(r"^((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([^:]{1,80}):\s?(.{0,300})$")
_LINK = re.compile(r"Speed\s+(\d{1,3}(?:\.\d)?)GT/s[^,]{0,30},\s*Width\s+x(\d{1,2})")


@dataclass
class LspciDevice:
    bus_id: str
    kind: str  # "3D controller", "VGA compatible controller", "PCI bridge", ...
    description: str
    cap_gen: int | None = None
    cap_width: int | None = None
    sta_gen: int | None = None
    sta_width: int | None = None
    downgraded: bool = False
    acs_redirect: bool | None = None  # ACSCtl ReqRedir+ or CmpltRedir+ (None: no ACS capability shown)

    @property
    def is_nvidia_gpu(self) -> bool:
        return "nvidia" in self.description.lower() and (
            "3d controller" in self.kind.lower() or "vga" in self.kind.lower()
        )

    @property
    def is_bridge(self) -> bool:
        return "bridge" in self.kind.lower()


def _gen(speed: str) -> int | None:
    try:
        return GT_S_TO_GEN.get(float(speed))
    except ValueError:
        return None


def parse_lspci(text: str) -> list[LspciDevice]:
    lines = clean_text(text, "lspci -vv")
    out: list[LspciDevice] = []
    for line in lines:
        if not line.strip():
            continue
        if not line[0].isspace():
            m = _DEVICE.match(line.strip())
            if m and (b := bus_id(m.group(1))):
                out.append(LspciDevice(b, m.group(2).strip(), m.group(3).strip()))
            continue
        if not out:
            continue
        dev = out[-1]
        s = line.strip()
        if s.startswith("LnkCap:") and (m := _LINK.search(s)):
            dev.cap_gen, dev.cap_width = _gen(m.group(1)), int(m.group(2))
        elif s.startswith("LnkSta:") and (m := _LINK.search(s)):
            dev.sta_gen, dev.sta_width = _gen(m.group(1)), int(m.group(2))
            dev.downgraded = "downgraded" in s.lower()
        elif s.startswith("ACSCtl:"):
            dev.acs_redirect = "ReqRedir+" in s or "CmpltRedir+" in s
    if not out:
        raise ParseError(
            "lspci -vv: no device lines ('41:00.0 3D controller: NVIDIA ...'); save the output of "
            "`sudo lspci -vv` (without sudo, lspci hides the link capabilities)"
        )
    if not any(d.cap_width or d.sta_width for d in out):
        raise ParseError(
            "lspci -vv: devices but no LnkCap/LnkSta lines; run it as root (`sudo lspci -vv`): an "
            "unprivileged lspci cannot read the capabilities"
        )
    return out
