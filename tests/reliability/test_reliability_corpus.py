"""A corpus of broken, huge, hostile and odd inputs, each run through every command-line entry point.

Every case says what it must give: the exit status (2: the file is refused, with its message; 1: the build
loads and the report names the problem as an error check; 0: it sizes cleanly) and a phrase the output must
hold. None may print a traceback, exit with the internal-error status, take over 10 s or grow the process
past 1 GB. The files are generated here (tmp_path), so the corpus needs no fixtures on disk.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from configurator import cli
from configurator.catalog.fileio import pdf_problem

ROOT = Path(__file__).resolve().parents[2]
TIME_LIMIT_S = 10.0
MEMORY_LIMIT_MB = 1024

GOOD = """\
schema_version: 1
name: corpus build
chassis: generic-server-8
cards:
  - {slot: 1, card: h200-nvl}
  - {slot: 2, card: h200-nvl}
bridges:
  - {slots: [1, 2]}
jobs:
  - name: eight b
    model: llama-3.1-8b
    method: lora
    sequence_length: 2048
    cards: [1]
"""

LLAMA = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
}
MODEL_BUILD = GOOD.replace("model: llama-3.1-8b", "model: model.json")


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # build | config | nccl | path
    make: Callable[[Path], Path]  # writes the input under the folder given, returns the path to pass
    rc: int  # exit status of `size` (and `size --json`; `export` gives 0 wherever size gives 1)
    text: str  # a phrase the output must hold (case-insensitive)


CASES: list[Case] = []


def _file(name: str, data: str | bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
        return path

    return make


def build(case_id: str, text: str | bytes, rc: int, phrase: str) -> None:
    CASES.append(Case(case_id, "build", _file("build.yaml", text), rc, phrase))


def edit(case_id: str, old: str, new: str, rc: int, phrase: str) -> None:
    assert old in GOOD, old
    build(case_id, GOOD.replace(old, new, 1), rc, phrase)


def config(case_id: str, data: dict | str | bytes, rc: int, phrase: str) -> None:  # type: ignore[type-arg]
    text = data if isinstance(data, str | bytes) else json.dumps(data)

    def make(folder: Path) -> Path:
        _file("model.json", text)(folder)
        return _file("build.yaml", MODEL_BUILD)(folder)

    CASES.append(Case(case_id, "config", make, rc, phrase))


def llama(**changes: object) -> dict:  # type: ignore[type-arg]
    out = {**LLAMA, **changes}
    return {k: v for k, v in out.items() if v is not None}


# ---- YAML syntax and encoding ------------------------------------------------------------------------
build("empty", "", 2, "empty file")
build("blank-lines", "\n\n\n", 2, "empty file")
build("only-comment", "# nothing\n", 2, "empty file")
build("top-level-list", "- 1\n- 2\n", 2, "a list at the top level")
build("top-level-string", "hello\n", 2, "a str at the top level")
build("top-level-int", "42\n", 2, "a int at the top level")
build("unclosed-flow", GOOD.replace("{slot: 1, card: h200-nvl}", "{slot: 1, card: h200-nvl"), 2, "not valid YAML")
build("bad-indent", GOOD.replace("    method: lora", "   method: lora"), 2, "not valid YAML")
build("tab-indent", GOOD.replace("    method: lora", "\tmethod: lora"), 2, "not valid YAML")
build("nul-byte", GOOD.replace("corpus build", "corpus\x00build").encode(), 2, "NUL byte")
build("control-char", GOOD.replace("corpus build", "corpus\x07build").encode(), 2, "control character")
build("not-utf8", b"name: x\n\xff\xfe\x00\x81binary", 2, "not UTF-8")
build("latin1", "name: caf\xe9\nchassis: generic-server-8\n".encode("latin-1"), 2, "not UTF-8")
build("utf16", GOOD.encode("utf-16"), 2, "not UTF-8")
build("bom-utf8", b"\xef\xbb\xbf" + GOOD.encode(), 0, "corpus build")
build("crlf", GOOD.replace("\n", "\r\n"), 0, "corpus build")
build("python-tag", GOOD.replace("corpus build", "!!python/object/apply:os.system ['true']"), 2, "python/object")
build("unknown-tag", GOOD.replace("corpus build", "!custom x"), 2, "not valid YAML")
build("binary-tag", GOOD.replace("corpus build", "!!binary notbase64!!"), 2, "not valid YAML")
build("impossible-date", GOOD.replace("corpus build", "2001-13-45"), 2, "2001-13-45")
build("unhashable-key", GOOD + "? [1, 2]\n: x\n", 2, "not valid YAML")
build("two-documents", GOOD + "---\nname: other\n", 2, "not valid YAML")
build("deep-nesting", "name: " + "[" * 3000 + "]" * 3000 + "\nchassis: generic-server-8\n", 2, "nested too deeply")
build("deep-mapping", "name: x\nchassis: generic-server-8\nextra: " + "{a: " * 500 + "1" + "}" * 500 + "\n", 2,
      "build.yaml:3: extra: unknown key")  # fmt: skip
build("recursive-alias", GOOD + "extra: &loop [1, *loop]\n", 2, "recursive alias")
_bomb = ['lol: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
for _prev, _name in zip("abcdefgh", "bcdefghi", strict=True):
    _bomb.append(f"{_name}{_name}: &{_name} [" + ", ".join(f"*{_prev}" for _ in range(9)) + "]")
build("billion-laughs", "chassis: generic-server-8\n" + "\n".join(_bomb) + "\nname: *i\n", 2, "alias bomb")
build("many-aliases", GOOD + "x: &x 1\ny: [" + ", ".join(["*x"] * 300) + "]\n", 2, "aliases")
build("too-large", GOOD + "# padding\n" * 600_000, 2, "larger than 1 MB")  # a build's own limit (catalog/limits.py)
build("long-line", "name: " + "x" * 900_000 + "\nchassis: generic-server-8\n", 2, "name")

# ---- duplicate keys -------------------------------------------------------------------------------
build("duplicate-top-key", GOOD + "jobs: []\n", 2, "given twice, on lines 9 and 15")
build("duplicate-name", GOOD.replace("name: corpus build\n", "name: a\nname: b\n"), 2, "lines 2 and 3")
build("duplicate-in-flow", GOOD.replace("{slot: 1, card: h200-nvl}", "{slot: 1, slot: 3, card: h200-nvl}"), 2,
      "given twice")  # fmt: skip
build("duplicate-job-key", GOOD.replace("    method: lora\n", "    method: lora\n    method: full\n"), 2,
      "method")  # fmt: skip
build("duplicate-quoted", GOOD.replace("name: corpus build\n", "name: a\n'name': b\n"), 2, "given twice")

# ---- structure and values -------------------------------------------------------------------------
edit("unknown-chassis", "chassis: generic-server-8", "chassis: nope", 2, "unknown chassis")
edit("unknown-card", "{slot: 2, card: h200-nvl}", "{slot: 2, card: h900}", 2, "unknown card")
edit("unknown-model", "model: llama-3.1-8b", "model: llama-9", 2, "unknown model")
edit("unknown-top-key", "name: corpus build", "name: corpus build\nnmae: typo", 2, "unknown key")
build("ten-thousand-keys", GOOD + "".join(f"k{i}: {i}\n" for i in range(10_000)), 2, "more problems")
edit("wrong-type-cards", "cards:\n  - {slot: 1, card: h200-nvl}\n  - {slot: 2, card: h200-nvl}", "cards: 5", 2,
     "valid list")  # fmt: skip
edit("two-cards-one-slot", "{slot: 2, card: h200-nvl}", "{slot: 1, card: h200-nvl}", 2, "build.yaml:6:")
edit("slot-zero", "{slot: 1, card: h200-nvl}", "{slot: 0, card: h200-nvl}", 2, "greater than or equal to 1")
edit("slot-huge", "{slot: 2, card: h200-nvl}", "{slot: 99999, card: h200-nvl}", 2, "less than or equal to 64")
edit("slot-400-digits", "{slot: 2, card: h200-nvl}", "{slot: " + "9" * 400 + ", card: h200-nvl}", 2, "cards[1].slot")
edit("slot-5000-digits", "{slot: 2, card: h200-nvl}", "{slot: " + "9" * 5000 + ", card: h200-nvl}", 2,
     "cannot read")  # fmt: skip
edit("slot-float", "{slot: 2, card: h200-nvl}", "{slot: 2.5, card: h200-nvl}", 2, "cards[1].slot")
edit("slot-string", "{slot: 2, card: h200-nvl}", "{slot: two, card: h200-nvl}", 2, "cards[1].slot")
edit("slot-bool", "{slot: 2, card: h200-nvl}", "{slot: true, card: h200-nvl}", 2, "slot 1 already holds")
edit("slot-null", "{slot: 2, card: h200-nvl}", "{slot: null, card: h200-nvl}", 2, "cards[1].slot")
edit("slot-not-in-chassis", "{slot: 2, card: h200-nvl}", "{slot: 40, card: h200-nvl}", 1, "no slot 40")
edit("card-empty-name", "{slot: 2, card: h200-nvl}", "{slot: 2, card: ''}", 2, "cards[1].card")
edit("power-negative", "{slot: 2, card: h200-nvl}", "{slot: 2, card: h200-nvl, power_limit_w: -5}", 2,
     "greater than 0")  # fmt: skip
edit("power-inf", "{slot: 2, card: h200-nvl}", "{slot: 2, card: h200-nvl, power_limit_w: .inf}", 2,
     "power_limit_w")  # fmt: skip
edit("power-nan", "{slot: 2, card: h200-nvl}", "{slot: 2, card: h200-nvl, power_limit_w: .nan}", 2,
     "power_limit_w")  # fmt: skip
edit("bridge-mixed-cards", "{slot: 2, card: h200-nvl}", "{slot: 2, card: rtx-pro-6000-server, mig: [1g.24gb]}", 1,
     "joins different cards")  # fmt: skip
edit("mig-unknown-profile", "{slot: 2, card: h200-nvl}", "{slot: 2, card: h200-nvl, mig: [9g.999gb]}", 1,
     "9g.999gb")  # fmt: skip
edit("mig-eight", "{slot: 2, card: h200-nvl}", "{slot: 2, card: h200-nvl, mig: [" + ", ".join(["1g.18gb"] * 8)
     + "]}", 1, "slot 2")  # fmt: skip
edit("mig-too-many", "{slot: 2, card: h200-nvl}", "{slot: 2, card: h200-nvl, mig: [" + ", ".join(["1g.18gb"] * 100)
     + "]}", 2, "at most 7 MIG instances")  # fmt: skip
edit("too-many-cards", "cards:\n  - {slot: 1, card: h200-nvl}\n  - {slot: 2, card: h200-nvl}",
     "cards:\n" + "".join(f"  - {{slot: {i % 64 + 1}, card: h200-nvl}}\n" for i in range(100)).rstrip("\n"), 2,
     "at most 64")  # fmt: skip
edit("too-many-bridges", "bridges:\n  - {slots: [1, 2]}", "bridges:\n" + "  - {slots: [1, 2]}\n" * 40, 2,
     "at most 32")  # fmt: skip
build("too-many-jobs", GOOD + "".join(f"  - {{name: j{i}, model: llama-3.1-8b, cards: [1]}}\n" for i in range(500)),
      2, "at most 448")  # fmt: skip
edit("bridge-one-slot", "{slots: [1, 2]}", "{slots: [1]}", 2, "bridges[0].slots")
edit("bridge-same-slot", "{slots: [1, 2]}", "{slots: [1, 1]}", 2, "distinct slots")
edit("bridge-empty-slot", "{slots: [1, 2]}", "{slots: [1, 7]}", 1, "")
edit("schema-version-2", "schema_version: 1", "schema_version: 2", 2, "schema_version")
edit("schema-version-text", "schema_version: 1", "schema_version: one", 2, "schema_version")
edit("name-too-long", "name: corpus build", "name: " + "n" * 5000, 2, "at most 200")
edit("name-html", "name: corpus build", "name: \"<img src='/dev/zero'><b>x\"", 0, "<img src='/dev/zero'>")
edit("name-rtl-emoji", "name: corpus build", 'name: "\u202egpu \U0001f525 build"', 0, "build")
edit("name-number", "name: corpus build", "name: 12", 2, "valid string")
edit("name-empty", "name: corpus build", "name: ''", 0, "")
edit("name-nel", "name: corpus build", 'name: "a\\Nb"', 0, "")
edit("job-name-html", "name: eight b", 'name: "<script>alert(1)</script>"', 0, "<script>")
edit("job-name-empty", "name: eight b", "name: ''", 2, "jobs[0].name")
edit("job-name-long", "name: eight b", "name: " + "j" * 300, 2, "at most 200")
edit("method-unknown", "method: lora", "method: dora", 2, "'full', 'lora' or 'qlora'")
edit("method-list", "method: lora", "method: [lora]", 2, "jobs[0].method")
edit("seq-zero", "sequence_length: 2048", "sequence_length: 0", 2, "greater than or equal to 1")
edit("seq-negative", "sequence_length: 2048", "sequence_length: -1", 2, "greater than or equal to 1")
edit("seq-huge", "sequence_length: 2048", "sequence_length: 99999999999", 2, "less than or equal to")
edit("seq-400-digits", "sequence_length: 2048", "sequence_length: " + "9" * 400, 2, "sequence_length")
edit("seq-float", "sequence_length: 2048", "sequence_length: 2048.5", 2, "sequence_length")
edit("seq-max", "sequence_length: 2048", "sequence_length: 2097152", 1, "does not fit")
edit("seq-inf", "sequence_length: 2048", "sequence_length: .inf", 2, "sequence_length")
edit("micro-batch-huge", "sequence_length: 2048", "micro_batch_size: 4096\n    sequence_length: 131072", 1,
     "does not fit")  # fmt: skip
edit("activation-10000", "sequence_length: 2048", "activation_memory_gb: 10000", 1, "does not fit")
edit("activation-negative", "sequence_length: 2048", "activation_memory_gb: -1", 2, "activation_memory_gb")
edit("activation-too-big", "sequence_length: 2048", "activation_memory_gb: 1e9", 2, "less than or equal to")
edit("job-cards-empty-slot", "cards: [1]", "cards: [5]", 1, "holds no card")
edit("job-cards-repeated", "cards: [1]", "cards: [1, 1]", 1, "more than once")
edit("job-cards-instance", "cards: [1]", "cards: [{slot: 1, instance: 3}]", 1, "MIG instance 3")
edit("job-cards-bad-ref", "cards: [1]", "cards: [{slot: 1}]", 2, "jobs[0].cards[0]")
edit("job-cards-too-many", "cards: [1]", "cards: [" + ", ".join(["1"] * 100) + "]", 2, "at most 64")
edit("job-tp-mismatch", "cards: [1]", "cards: [1, 2]\n    parallelism: tp\n    tensor_parallel: 4", 1,
     "tensor_parallel 4")  # fmt: skip
edit("job-single-two-cards", "cards: [1]", "cards: [1, 2]", 1, "single card")
edit("lora-rank-zero", "method: lora", "method: lora\n    lora: {rank: 0}", 2, "jobs[0].lora.rank")
edit("lora-rank-huge", "method: lora", "method: lora\n    lora: {rank: 100000}", 2, "less than or equal to 4096")
edit("lora-targets-empty", "method: lora", "method: lora\n    lora: {targets: []}", 2, "at least one module")
edit("lora-targets-unknown", "method: lora", "method: lora\n    lora: {targets: [nope_proj]}", 1, "nope_proj")
edit("lora-targets-word", "method: lora", "method: lora\n    lora: {targets: everything}", 2, "jobs[0].lora.targets")
edit("lora-qv-fused", "model: llama-3.1-8b", "model: phi-3-mini\n    lora: {targets: qv}", 1, "fused qkv_proj")
edit("lora-dropout-one", "method: lora", "method: lora\n    lora: {dropout: 1}", 2, "less than 1")
edit("params-half", "model: llama-3.1-8b", "model: {parameters: 0.5}", 2, "greater than or equal to 1")
edit("params-zero", "model: llama-3.1-8b", "model: {parameters: 0}", 2, "greater than or equal to 1")
edit("params-huge", "model: llama-3.1-8b", "model: {parameters: 1e20}", 2, "less than or equal to")
edit("params-inf", "model: llama-3.1-8b", "model: {parameters: .inf}", 2, "model.parameters")
edit("params-nan", "model: llama-3.1-8b", "model: {parameters: .nan}", 2, "model.parameters")
edit("params-400-digits", "model: llama-3.1-8b", "model: {parameters: " + "9" * 400 + "}", 2, "model.parameters")
edit("params-string", "model: llama-3.1-8b", "model: {parameters: lots}", 2, "model.parameters")
edit("params-extra-key", "model: llama-3.1-8b", "model: {parameters: 7e9, layers: 32}", 2, "unknown key")
edit("params-max", "model: llama-3.1-8b", "model: {parameters: 1e13}\n    activation_memory_gb: 15", 1,
     "does not fit")  # fmt: skip
edit("model-null", "model: llama-3.1-8b", "model: null", 2, "jobs[0].model")
edit("model-list", "model: llama-3.1-8b", "model: [a, b]", 2, "jobs[0].model")
edit("model-missing-json", "model: llama-3.1-8b", "model: nowhere/config.json", 1, "file not found")
edit("model-nosuchuser", "model: llama-3.1-8b", "model: ~nosuchuser/config.json", 1, "no such user")
edit("model-dev-zero", "model: llama-3.1-8b", "model: /dev/zero", 1, "a device")
edit("model-dev-urandom", "model: llama-3.1-8b", "model: /dev/urandom", 1, "a device")
edit("model-directory", "model: llama-3.1-8b", "model: /tmp/", 1, "a folder")
edit("model-proc", "model: llama-3.1-8b", "model: /proc/self/status.json", 1, "file not found")
edit("model-nul-path", "model: llama-3.1-8b", 'model: "a\\0b/config.json"', 1, "NUL byte")
edit("model-long-path", "model: llama-3.1-8b", "model: " + "d/" * 3000 + "config.json", 1, "cannot read")
edit("util-tiny", "name: corpus build", "name: corpus build\nassumptions: {utilization: 1e-300}", 2,
     "greater than or equal to 0.01")  # fmt: skip
edit("util-zero", "name: corpus build", "name: corpus build\nassumptions: {utilization: 0}", 2, "utilization")
edit("util-two", "name: corpus build", "name: corpus build\nassumptions: {utilization: 2}", 2, "utilization")
edit("util-nan", "name: corpus build", "name: corpus build\nassumptions: {utilization: .nan}", 2, "utilization")
edit("margin-negative", "name: corpus build", "name: corpus build\nassumptions: {safety_margin_fraction: -1}", 2,
     "safety_margin_fraction")  # fmt: skip
edit("link-rates-unknown", "name: corpus build", "name: corpus build\nassumptions: {link_rates: fast}", 2,
     "'nominal' or 'measured'")  # fmt: skip
edit("calibration-zero", "name: corpus build",
     "name: corpus build\nassumptions: {calibration: [{link: pcie, busbw_gb_s: 0}]}", 2, "greater than 0")  # fmt: skip
edit("calibration-huge", "name: corpus build",
     "name: corpus build\nassumptions: {calibration: [{link: pcie, busbw_gb_s: 99999}]}", 2,
     "less than or equal to 5000")  # fmt: skip
edit("calibration-link", "name: corpus build",
     "name: corpus build\nassumptions: {calibration: [{link: wifi, busbw_gb_s: 20}]}", 2, "link")  # fmt: skip
edit("calibration-html-source", "name: corpus build",
     "name: corpus build\nassumptions: {calibration: [{link: nvlink, busbw_gb_s: 20, source: '<b>x</b>'}]}", 0,
     "")  # fmt: skip

# ---- config.json through a build ------------------------------------------------------------------
config("cfg-good", LLAMA, 0, "fits")
config("cfg-empty-file", "", 1, "not valid JSON")
config("cfg-not-json", "model_type: llama", 1, "not valid JSON")
config("cfg-array", "[1, 2, 3]", 1, "one JSON object")
config("cfg-string", '"llama"', 1, "one JSON object")
config("cfg-trailing-comma", '{"model_type": "llama",}', 1, "not valid JSON")
config("cfg-deep", "[" * 100_000 + "]" * 100_000, 1, "nested too deeply")
config("cfg-nul", b'{"model_type": "llama\x00"}', 1, "model.json")
config("cfg-not-utf8", b'{"model_type": "\xff"}', 1, "not UTF-8")
config("cfg-bom", b"\xef\xbb\xbf" + json.dumps(LLAMA).encode(), 0, "fits")
config("cfg-no-type", llama(model_type=None), 1, "model_type: required key is missing")
config("cfg-unknown-type", llama(model_type="gpt9"), 1, "unsupported model type")
config("cfg-type-number", llama(model_type=7), 1, "unsupported model type")
config("cfg-type-list", llama(model_type=["llama"]), 1, "unsupported model type")
config("cfg-missing-hidden", llama(hidden_size=None), 1, "hidden_size: required key is missing")
config("cfg-hidden-zero", llama(hidden_size=0), 1, "hidden_size: must be 1 to")
config("cfg-hidden-negative", llama(hidden_size=-4096), 1, "hidden_size: must be 1 to")
config("cfg-hidden-string", llama(hidden_size="4096"), 1, "must be a whole number")
config("cfg-hidden-float", llama(hidden_size=4096.5), 1, "must be a whole number")
config("cfg-hidden-whole-float", llama(hidden_size=4096.0), 0, "fits")
config("cfg-hidden-bool", llama(hidden_size=True), 1, "must be a whole number")
config("cfg-hidden-huge", llama(hidden_size=10**7), 1, "must be 1 to 65,536")
config("cfg-vocab-400-digits", '{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, '
       '"intermediate_size": 14336, "num_attention_heads": 32, "vocab_size": ' + "9" * 400 + "}", 1,
       "a 400-digit number")  # fmt: skip
config("cfg-vocab-5000-digits", '{"model_type": "llama", "vocab_size": ' + "9" * 5000 + "}", 1,
       "number too long")  # fmt: skip
config("cfg-layers-1e9-dense", llama(num_hidden_layers=10**9), 1, "num_hidden_layers: must be 1 to 1,024")
config("cfg-layers-1e7", llama(num_hidden_layers=10**7), 1, "num_hidden_layers")
config("cfg-layers-1e9-moe", {"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 10**9,
       "intermediate_size": 5632, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 151936,
       "num_experts": 60, "num_experts_per_tok": 4, "moe_intermediate_size": 1408,
       "shared_expert_intermediate_size": 5632}, 1, "num_hidden_layers")  # fmt: skip
config("cfg-experts-huge", {"model_type": "mixtral", **{k: v for k, v in LLAMA.items() if k != "model_type"},
       "num_local_experts": 10**6, "num_experts_per_tok": 2}, 1, "num_local_experts")  # fmt: skip
config("cfg-experts-per-tok-over", {"model_type": "mixtral", **{k: v for k, v in LLAMA.items() if k != "model_type"},
       "num_local_experts": 8, "num_experts_per_tok": 9}, 1, "num_experts_per_tok")  # fmt: skip
config("cfg-mlp-only-out-of-range", {"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
       "intermediate_size": 5632, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 151936,
       "num_experts": 60, "num_experts_per_tok": 4, "moe_intermediate_size": 1408,
       "shared_expert_intermediate_size": 5632, "mlp_only_layers": [99]}, 1, "mlp_only_layers")  # fmt: skip
config("cfg-mlp-only-huge-list", {"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
       "intermediate_size": 5632, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 151936,
       "num_experts": 60, "num_experts_per_tok": 4, "moe_intermediate_size": 1408,
       "shared_expert_intermediate_size": 5632, "mlp_only_layers": list(range(100_000))}, 1,
       "mlp_only_layers")  # fmt: skip
config("cfg-kv-not-divisor", llama(num_key_value_heads=7), 1, "not a multiple")
config("cfg-heads-not-divisor-qwen2", {**llama(model_type="qwen2"), "num_attention_heads": 30}, 1, "not divisible")
config("cfg-head-dim-huge", llama(head_dim=10**6), 1, "head_dim")
config("cfg-tie-string", llama(tie_word_embeddings="yes"), 1, "true or false")
config("cfg-bias-number", llama(attention_bias=1), 1, "true or false")
config("cfg-nan", json.dumps(LLAMA).replace("4096,", "NaN,", 1), 1, "whole number")
config("cfg-infinity", json.dumps(LLAMA).replace("4096,", "Infinity,", 1), 1, "whole number")
config("cfg-1e400", json.dumps(LLAMA).replace("4096,", "1e400,", 1), 1, "whole number")
config("cfg-name-html", llama(_name_or_path="<img src='/dev/zero'>"), 0, "fits")
config("cfg-name-long", llama(_name_or_path="m" * 100_000), 0, "fits")
config("cfg-ten-thousand-keys", {**LLAMA, **{f"k{i}": i for i in range(10_000)}}, 0, "fits")
config("cfg-mllama-text", {"model_type": "mllama", "text_config": {"model_type": "mllama_text_model"}}, 1,
       "text_config")  # fmt: skip
config("cfg-gemma3", {"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "hidden_size": 2560}}, 1,
       "text_config.num_hidden_layers")  # fmt: skip
config("cfg-llava-llama", {"model_type": "llava", "text_config": LLAMA}, 0, "fits")
config("cfg-text-config-string", {"model_type": "llava", "text_config": "llama"}, 1, "unsupported model type")
config("cfg-too-large", '{"model_type": "llama", "pad": "' + "x" * 5_100_000 + '"}', 1, "larger than 5 MB")
config("cfg-phi3-qv", {"model_type": "phi3", "hidden_size": 3072, "num_hidden_layers": 32,
       "intermediate_size": 8192, "num_attention_heads": 32, "vocab_size": 32064}, 0, "")  # fmt: skip


def _phi3_qv(folder: Path) -> Path:
    (folder / "model.json").write_text(json.dumps({"model_type": "phi3", "hidden_size": 3072, "num_hidden_layers": 32,
                                                   "intermediate_size": 8192, "num_attention_heads": 32,
                                                   "vocab_size": 32064}))  # fmt: skip
    return _file("build.yaml", MODEL_BUILD.replace("method: lora", "method: lora\n    lora: {targets: qv}"))(folder)


CASES.append(Case("cfg-phi3-qv-target", "config", _phi3_qv, 1, "fused qkv_proj"))

# ---- nccl-tests output ----------------------------------------------------------------------------


def _nccl_row(size: int, busbw: str) -> str:
    return f"  {size:>12}  {size // 4:>12}     float     sum      -1   1234.5   {busbw:>6}  {busbw:>6}      0   1234.5   {busbw:>6}  {busbw:>6}      0"  # noqa: E501


def nccl(case_id: str, text: str | bytes, rc: int, phrase: str) -> None:
    CASES.append(Case(case_id, "nccl", _file("nccl.txt", text), rc, phrase))


nccl("nccl-good", "# nccl-tests\n" + _nccl_row(2**27, "21.40") + "\n" + _nccl_row(2**30, "22.10") + "\n", 0, "22.1")
nccl("nccl-empty", "", 2, "no all_reduce_perf rows")
nccl("nccl-only-small", _nccl_row(1024, "1.00") + "\n", 2, "no all_reduce_perf rows of 64 MiB")
nccl("nccl-zero", _nccl_row(2**30, "0.00") + "\n", 2, "no usable large-message row")
nccl("nccl-99999", _nccl_row(2**30, "99999") + "\n", 2, "at most 5000")
nccl("nccl-inf", _nccl_row(2**30, "inf") + "\n", 2, "no usable large-message row")
nccl("nccl-nan", _nccl_row(2**30, "nan") + "\n", 2, "no usable large-message row")
nccl("nccl-mixed", _nccl_row(2**30, "99999") + "\n" + _nccl_row(2**29, "20.5") + "\n", 0, "20.5")
nccl("nccl-digits", _nccl_row(2**30, "1" * 5000) + "\n", 2, "no all_reduce_perf rows")
nccl("nccl-huge-size", "9" * 5000 + " 1 float sum -1 1.0 2.0 3.0 0\n", 2, "no all_reduce_perf rows")
nccl("nccl-binary", bytes(range(256)) * 10, 2, "not UTF-8")
nccl("nccl-nul", "\x00" * 1000, 2, "no all_reduce_perf rows")
nccl("nccl-too-large", "#" * 5_100_000, 2, "larger than 5 MB")
nccl("nccl-dots", _nccl_row(2**30, "1.2.3") + "\n", 2, "no")
nccl("nccl-quote-name", _nccl_row(2**30, "21.0") + "\n", 0, "21.0")

# ---- odd paths (for every command) ------------------------------------------------------------------


def _path(case_id: str, make: Callable[[Path], Path], phrase: str) -> None:
    CASES.append(Case(case_id, "path", make, 2, phrase))


def _fifo(folder: Path) -> Path:
    path = folder / "fifo.yaml"
    os.mkfifo(path)
    return path


def _loop(folder: Path) -> Path:
    (folder / "a.yaml").symlink_to(folder / "b.yaml")
    (folder / "b.yaml").symlink_to(folder / "a.yaml")
    return folder / "a.yaml"


def _unreadable(folder: Path) -> Path:
    path = _file("locked.yaml", GOOD)(folder)
    path.chmod(0)
    return path


def _dangling(folder: Path) -> Path:
    (folder / "gone.yaml").symlink_to(folder / "nothing-here.yaml")
    return folder / "gone.yaml"


_path("path-dev-zero", lambda folder: Path("/dev/zero"), "a device")
_path("path-dev-urandom", lambda folder: Path("/dev/urandom"), "a device")
_path("path-dev-null", lambda folder: Path("/dev/null"), "a device")
_path("path-fifo", _fifo, "FIFO")
_path("path-directory", lambda folder: folder, "a folder")
_path("path-missing", lambda folder: folder / "missing.yaml", "file not found")
_path("path-nosuchuser", lambda folder: Path("~nosuchuser/build.yaml"), "no such user")
_path("path-symlink-loop", _loop, "cannot read")
_path("path-dangling-link", _dangling, "file not found")
_path("path-not-a-folder", lambda folder: _file("plain", "x")(folder) / "build.yaml", "cannot read")
_path("path-too-long", lambda folder: folder / ("x" * 5000), "cannot read")
if os.geteuid() != 0:  # root reads a mode-000 file anyway
    _path("path-unreadable", _unreadable, "permission denied")

# ---- the tests ------------------------------------------------------------------------------------


class _TooSlow(BaseException):
    """From the alarm; a BaseException so no `except Exception` in the code under test swallows it."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def _alarm(signum: int, frame: object) -> None:
        raise _TooSlow(f"took longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with _time_limit(TIME_LIMIT_S):  # a hang guard (raises past it), not a speed check
        rc = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, err[-2000:]
    assert rc != cli.INTERNAL_ERROR, err
    return rc, out, err


def test_the_corpus_is_large_and_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    assert len(CASES) >= 150, len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each input through `size`, `size --json`, `export` (or `nccl-busbw`) gives its own outcome."""
    folder = tmp_path / "in"
    folder.mkdir()
    path = case.make(folder)
    phrase = case.text.lower()
    if case.kind == "nccl" or case.kind == "path":
        rc, out, err = _run(["nccl-busbw", str(path)], capsys)
        if case.kind == "nccl":
            assert rc == case.rc, err
            assert phrase in (out + err).lower(), out + err
            if rc == 0:  # the suggested line is one the build file accepts
                snippet = out.split("calibration: ")[1].strip()
                edit_text = GOOD.replace("name: corpus build", f"name: corpus build\nassumptions:\n  calibration: "
                                         f"{snippet}")  # fmt: skip
                (folder / "calibrated.yaml").write_text(edit_text, encoding="utf-8")
                assert _run(["size", str(folder / "calibrated.yaml")], capsys)[0] == 0
            return
        assert rc == 2 and phrase in err.lower(), err
    rc, out, err = _run(["size", str(path)], capsys)
    assert rc == case.rc, out[-3000:] + err
    assert phrase in (out + err).lower(), (out + err)[-3000:]
    if rc == 2:
        assert err.startswith("error: ") and len(err.splitlines()) <= 25, err[:3000]
        assert all(len(line) < 700 for line in err.splitlines()), "a message line is too long to read"
    rc_json, out_json, _err_json = _run(["size", "--json", str(path)], capsys)
    assert rc_json == case.rc
    if rc_json != 2:
        result = json.loads(out_json)
        assert isinstance(result["checks"], list)
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(b"old sheet")
    rc_pdf, _out_pdf, err_pdf = _run(["export", str(path), "-o", str(pdf)], capsys)
    if case.rc == 2:
        assert rc_pdf == 2 and pdf.read_bytes() == b"old sheet", err_pdf
    else:
        assert rc_pdf == 0, err_pdf
        assert pdf_problem(pdf) is None
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".sheet.pdf.")], "a temp file was left"


def test_logo_must_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--logo` naming a missing file (or a device, or text) is an error and writes no sheet."""
    build_file = _file("build.yaml", GOOD)(tmp_path)
    for logo, phrase in ((tmp_path / "nope.svg", "file not found"), (Path("/dev/zero"), "a device"),
                         (build_file, "not an svg or png")):  # fmt: skip
        rc, _, err = _run(["export", str(build_file), "-o", str(tmp_path / "x.pdf"), "--logo", str(logo)], capsys)
        assert rc == 2 and phrase in err.lower(), err
        assert not (tmp_path / "x.pdf").exists()


def test_memory_stays_under_a_gigabyte() -> None:
    """The whole corpus ran in this process: its peak resident size stays under 1 GB."""
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert peak_mb < MEMORY_LIMIT_MB, f"peak {peak_mb:.0f} MB"


SUBPROCESS_CASES = ["path-fifo", "path-dev-zero", "billion-laughs", "cfg-layers-1e9-moe", "too-large", "nul-byte"]


@pytest.mark.parametrize("case_id", SUBPROCESS_CASES)
def test_bad_input_in_a_fresh_process(case_id: str, tmp_path: Path) -> None:
    """A few cases as a user runs them: a separate process, limited to 1 GB of address space growth and 10 s."""
    case = next(c for c in CASES if c.id == case_id)
    path = case.make(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-m", "configurator.cli", "size", str(path)], capture_output=True,
                          text=True, timeout=TIME_LIMIT_S + 20, env=env, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == case.rc, proc.stderr
    assert "Traceback" not in proc.stderr and case.text.lower() in (proc.stdout + proc.stderr).lower()
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert peak_mb < MEMORY_LIMIT_MB, f"a child peaked at {peak_mb:.0f} MB"
