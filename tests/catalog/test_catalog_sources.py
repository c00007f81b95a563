"""Every `source:` in specs/ can be followed by a reader of the build sheet (issue 16).

A source is an http(s) address, a derivation or assumption that says so, or a public document named
by its title. A figure read off `nvidia-smi` is only as good as the page that printed it, so every
clause that cites a transcript carries that page's address, or says that none was found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

SPECS = Path(__file__).resolve().parents[2] / "specs"
SPEC_FILES = sorted(SPECS.glob("*.yaml"))
URL = re.compile(r"https?://\S+")
CITES_TRANSCRIPT = re.compile(r"nvidia-smi|-lgipp?\b|\btranscripts?\b", re.IGNORECASE)
# "public nvidia-smi output of ..." names no page even when another address sits in the same clause.
VAGUE = re.compile(r"\bpublic\b[^;,()]*\boutput\b", re.IGNORECASE)
NO_ADDRESS = "UNCONFIRMED: no public address found"
REASONED = ("derived:", "generic:", "UNCONFIRMED")
# Public documents a reader finds by title; a source naming one needs no address.
NAMED_DOCUMENTS = (
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper",
    "NVIDIA RTX PRO Blackwell GPU Architecture whitepaper",
    "Eurokommerz, 'H200 NVL or RTX PRO 6000 for fine-tuning and training",
    "'Decide by whether any single job needs more than one card'",
    "StorageReview review of the AS-4125GS-TNRT",
    "StorageReview AS-4125GS-TNRT review",
)

# What the catalog said before issue 16: each cites a transcript that no reader can find.
OLD_TRANSCRIPT_SOURCES = (
    "public nvidia-smi output of H200 NVL servers (Memory-Usage total 143771MiB, 600 W cap, driver 575);"
    " reproduce with nvidia-smi on the card",
    "https://www.nvidia.com/en-us/data-center/h200/ 'Up to 600W (configurable)'; public nvidia-smi output of"
    " H200 NVL shows a 600 W power cap",
    "public nvidia-smi output of H200 SXM (Memory-Usage total 143771MiB, 700 W cap)",
    "public nvidia-smi output on an Azure NC40ads_H100_v5 VM (H100 NVL, driver 560.35.03; Azure VM sizes:"
    " https://learn.microsoft.com/en-us/azure/virtual-machines/ncads-h100-v5)",
    "public nvidia-smi mig -lgip output on H100 80GB HBM3 (132 SMs); profiles as in the NVIDIA MIG User Guide,"
    " https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html",
    "public nvidia-smi output of RTX PRO 6000 Blackwell Workstation Edition (Memory-Usage total 97887MiB, 600 W)",
    "public nvidia-smi output of L40S (Memory-Usage total 46068MiB, 350 W)",
    "public nvidia-smi output of B200 (Memory-Usage total 183359MiB, 1000 W cap)",
    "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html (one table); -lgip on"
    " Max-Q (public output, driver 580.105.08) and Server (https://github.com/bigstack-oss/cubecos/issues/312,"
    " and public output at driver 610.43.02)",
)
OLD_UNFINDABLE_SOURCES = (
    "SXM5 module on an HGX baseboard (no expansion slots)",
    "NVIDIA HGX B200 table",
    "MIG profile name (supported-mig-profiles.html)",
)


def sources(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, text) of every `source:` string under ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "source" and isinstance(value, str):
                yield path or "source", value
            else:
                yield from sources(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from sources(value, f"{path}[{i}]")


def unaddressed_transcripts(text: str) -> list[str]:
    """Clauses of ``text`` that cite an nvidia-smi transcript without the address that prints it."""
    clauses = [clause.strip() for clause in text.split(";") if NO_ADDRESS not in clause]
    return [c for c in clauses if (CITES_TRANSCRIPT.search(c) and not URL.search(c)) or VAGUE.search(c)]


def findable(text: str) -> bool:
    """True when a reader can follow ``text``: an address, a stated derivation, or a named document."""
    if URL.search(text) or text.lstrip().startswith(REASONED):
        return True
    return any(title.lower() in text.lower() for title in NAMED_DOCUMENTS)


def all_sources() -> list[tuple[str, str]]:
    out = []
    for spec in SPEC_FILES:
        data = yaml.safe_load(spec.read_text(encoding="utf-8"))
        out += [(f"{spec.name}:{where}", text) for where, text in sources(data)]
    return out


def test_the_specs_hold_sources() -> None:
    assert {p.name for p in SPEC_FILES} >= {"cards.yaml", "chassis.yaml", "models.yaml"}
    assert len(all_sources()) > 300


@pytest.mark.parametrize("text", OLD_TRANSCRIPT_SOURCES)
def test_the_old_transcript_sources_are_caught(text: str) -> None:
    assert unaddressed_transcripts(text), text


@pytest.mark.parametrize("text", OLD_UNFINDABLE_SOURCES)
def test_the_old_unfindable_sources_are_caught(text: str) -> None:
    assert not findable(text), text


@pytest.mark.parametrize(
    "text",
    [
        "nvidia-smi on 8x B200: https://github.com/NVIDIA/TensorRT-LLM/issues/10278 ('192W / 1000W | 183359MiB')",
        "https://www.nvidia.com/en-us/data-center/h200/ 'Up to 700W'; nvidia-smi shows a 700 W cap: https://example.org/t",
        "nvidia-smi mig -lgip on A100 80GB: UNCONFIRMED: no public address found; profiles as in https://docs.nvidia.com/",
        "derived: 2 x 44.25 GiB (the 2-slice instance) for 4 memory slices",
    ],
)
def test_addressed_sources_pass(text: str) -> None:
    assert not unaddressed_transcripts(text)
    assert findable(text)


def test_every_transcript_cites_its_address() -> None:
    bad = [f"{where}: {clause[:110]}" for where, text in all_sources() for clause in unaddressed_transcripts(text)]
    assert not bad, f"{len(bad)} nvidia-smi citations without the page that prints them:\n" + "\n".join(bad)


def test_every_source_has_an_address_or_a_named_document() -> None:
    bad = [f"{where}: {text[:110]}" for where, text in all_sources() if not findable(text)]
    assert not bad, f"{len(bad)} sources a reader cannot follow:\n" + "\n".join(bad)


def test_whole_card_memory_sources_quote_the_catalog_figure() -> None:
    """The nvidia-smi Memory-Usage total the catalog holds is the one its source prints."""
    cards = yaml.safe_load((SPECS / "cards.yaml").read_text(encoding="utf-8"))["cards"]
    bad = [
        f"{card['id']}: {card['memory_visible_mib']['value']} not in {card['memory_visible_mib']['source'][:90]}"
        for card in cards
        if card.get("memory_visible_mib", {}).get("value") is not None
        and str(card["memory_visible_mib"]["value"]) not in card["memory_visible_mib"]["source"]
    ]
    assert not bad, bad
