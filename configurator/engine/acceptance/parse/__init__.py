"""Parsers for what a shop measures on a built machine, each from the tool's documented output format.

Every parser takes text (never a path: reading is the caller's, through the catalog's size-capped reader),
tolerates the variations real tools print (ANSI colour codes, CRLF line ends, extra NIC columns, units or
none, ``[N/A]`` fields), and raises :class:`ParseError` with a plain sentence for input it cannot use, never
another exception. :func:`detect` says which tool printed a file.
"""

from __future__ import annotations

from configurator.engine.acceptance.parse.common import ParseError, clean_text
from configurator.engine.acceptance.parse.dcgm import DcgmSample, parse_dcgm
from configurator.engine.acceptance.parse.detect import detect
from configurator.engine.acceptance.parse.gemm_json import GemmOutput, GemmResult, GemmSmi, parse_gemm_json
from configurator.engine.acceptance.parse.lgip import LgipProfile, parse_lgip
from configurator.engine.acceptance.parse.lspci import LspciDevice, parse_lspci
from configurator.engine.acceptance.parse.measure_json import MeasuredJob, MeasureOutput, parse_measure_json
from configurator.engine.acceptance.parse.nccl_tests import NcclRun, parse_nccl
from configurator.engine.acceptance.parse.smi import SmiGpu, parse_query_csv, parse_smi_q
from configurator.engine.acceptance.parse.topo import TopoMatrix, parse_topo

__all__ = [
    "DcgmSample",
    "GemmOutput",
    "GemmResult",
    "GemmSmi",
    "LgipProfile",
    "LspciDevice",
    "MeasureOutput",
    "MeasuredJob",
    "NcclRun",
    "ParseError",
    "SmiGpu",
    "TopoMatrix",
    "clean_text",
    "detect",
    "parse_dcgm",
    "parse_gemm_json",
    "parse_lgip",
    "parse_lspci",
    "parse_measure_json",
    "parse_nccl",
    "parse_query_csv",
    "parse_smi_q",
    "parse_topo",
]
