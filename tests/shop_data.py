"""Shared shop data of the tests: a price list, and the test for private references in what a customer reads.
A helper module, not a test module."""

from __future__ import annotations

import re

PRICES = """\
currency: EUR
tax_rate: 0.19
valid_days: 30
parts: {rtx-pro-6000-ws: 8900.50, generic-workstation-4: 3200, nvlink-bridge-h200-nvl-2way: 650, dimm-16gb: 95,
        nvme-1.92tb: 240}
services: [{name: Assembly and burn-in, price: 450}, {name: 3-year warranty, price: 1200}]
"""


PRIVATE = re.compile(
    r"\.md\b|\.txt\b|\bidx:|\bseeds?\s*[AB]\b|seed A/B|\bseed article|measured-runs|hardware-facts|chassis-power"
    r"|/work/|shared/|\[[STC]\d+\]",
    re.IGNORECASE,
)


def private_sources(text: str) -> list[str]:
    """Private references in ``text``; a file inside a public URL (a repository's README.md) is public."""
    return [m.group(0) for m in PRIVATE.finditer(re.sub(r"https?://\S+", "<url>", text))]
