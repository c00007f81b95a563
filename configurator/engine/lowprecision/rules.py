"""Low-precision training, support: which recipe a card supports, rule by rule, as the software checks it.

Support follows the software's own checks, rule by rule, at the versions read:
- Transformer Engine (TE) main at commit d0067d0 (2.20.0.dev0), ``transformer_engine/pytorch/quantization.py``:
  ``_compute_fp8_support``, ``_compute_fp8_block_scaling_support``, ``_compute_mxfp8_support``,
  ``_compute_nvfp4_support`` and ``get_default_fp8_recipe``; history from the repository's tags.
- torchao 0.19.0 at commit 36027d8: ``torchao/utils.py`` (``is_sm_at_least_89`` / ``is_sm_at_least_100``),
  ``torchao/float8/config.py``, ``torchao/prototype/mx_formats/kernels.py``.
Where the code's gate and NVIDIA's documentation ("Supported devices" on each recipe's page under TE's
``docs/features/low_precision_training/``) disagree, the rule follows the code and says so in its note.
(engine/lowprecision/checks.py re-exports every name here.)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal, get_args

from configurator.catalog.cards import CardSpec
from configurator.engine.cache import CACHE

Recipe = Literal["fp8-delayed", "fp8-current", "fp8-block", "mxfp8", "nvfp4"]
RECIPES: tuple[Recipe, ...] = get_args(Recipe)
_RECIPE_BY_NAME: dict[str, Recipe] = {r: r for r in RECIPES}  # a precision's recipe, typed as one, in one lookup
Software = Literal["transformer-engine", "torchao"]
DEFAULT_SOFTWARE: Software = "transformer-engine"
TE_VERSION_READ = (2, 20)  # 2.20.0.dev0, the TE main branch the rules were read from
Capability = tuple[int, int]

# What each recipe is in TE (transformer_engine/common/recipe/__init__.py) and in torchao.
RECIPE_NAMES: dict[Recipe, str] = {
    "fp8-delayed": "FP8 delayed scaling (TE DelayedScaling)",
    "fp8-current": "FP8 current scaling (TE Float8CurrentScaling; torchao float8 tensorwise)",
    "fp8-block": "FP8 block scaling, 1x128 / 128x128 (TE Float8BlockScaling)",
    "mxfp8": "MXFP8, one E8M0 scale per 32 values (TE MXFP8BlockScaling; torchao mxfp8)",
    "nvfp4": "NVFP4, one E4M3 scale per 16 values and an FP32 per tensor (TE NVFP4BlockScaling)",
}

TE_FILE = "TransformerEngine transformer_engine/pytorch/quantization.py"
TE_DOCS = "TransformerEngine docs/features/low_precision_training"


@dataclass(frozen=True)
class Gate:
    """One branch of a support check, in the order the code tests them: capabilities in [low, below) get
    ``allowed`` and, when refused, the code's own message."""

    low: Capability
    below: Capability | None
    allowed: bool
    message: str = ""
    note: str = ""  # a disagreement with the docs, or a prerequisite the configurator cannot see (CUDA version)


@dataclass(frozen=True)
class Rule:
    recipe: Recipe
    software: Software
    source: str  # file and function (or doc page) of the check
    gates: tuple[Gate, ...]  # first match wins; no match: refused with ``otherwise``
    otherwise: str
    since: tuple[int, int] | None = None  # first software version with the recipe (TE)
    history: tuple[tuple[tuple[int, int], tuple[Gate, ...]], ...] = ()  # (until version, gates) for older versions


_NVFP4_DOCS = (
    "TE's code gate passes here (compute capability >= 10.0), but TE's NVFP4 page (nvfp4.rst, 'Supported "
    "devices') lists training for SM 10.0 and SM 10.3 only: outside them it is undocumented."
)

RULES: tuple[Rule, ...] = (
    Rule(
        "fp8-delayed",
        "transformer-engine",
        f"{TE_FILE}: _compute_fp8_support (check_recipe_support)",
        (
            Gate((9, 0), None, True),
            Gate((8, 9), (9, 0), True, note="Ada needs CUDA >= 12.1 and cuBLASLt >= 12.1.3 (same check)."),
        ),
        "Device compute capability 8.9 or higher required for FP8 execution.",
        since=(0, 8),
    ),
    Rule(
        "fp8-current",
        "transformer-engine",
        f"{TE_FILE}: _compute_fp8_support (check_recipe_support)",
        (
            Gate((9, 0), None, True),
            Gate((8, 9), (9, 0), True, note="Ada needs CUDA >= 12.1 and cuBLASLt >= 12.1.3 (same check)."),
        ),
        "Device compute capability 8.9 or higher required for FP8 execution.",
        since=(2, 2),
    ),
    Rule(
        "fp8-block",
        "transformer-engine",
        f"{TE_FILE}: _compute_fp8_block_scaling_support",
        (
            Gate(
                (9, 0),
                (10, 0),
                True,
                note="Needs CUDA >= 12.9 (same check); on Hopper the block-scaled GEMMs are "
                "software-emulated (TE fp8_blockwise_scaling.rst).",
            ),
            Gate(
                (10, 0),
                (12, 0),
                True,
                note="Needs CUDA >= 12.9; TE emulates the recipe with MXFP8 on Blackwell "
                "(fp8_blockwise_scaling.rst) and prefers MXFP8 there.",
            ),
            Gate(
                (12, 0),
                None,
                True,
                note="TE's code gate passes here (compute capability >= 9.0, CUDA >= 12.9), but "
                "its docs say Blackwell runs this recipe through MXFP8, which the same file refuses on 12.0+ "
                "(_compute_mxfp8_support): undocumented and untested here.",
            ),
        ),
        "FP8 block scaled GEMM requires compute capability 9.0 or higher and CUDA >= 12.9.",
        since=(2, 3),
        history=(((2, 8), (Gate((9, 0), (10, 0), True, note="Needs CUDA >= 12.9."),)),),
    ),
    Rule(
        "mxfp8",
        "transformer-engine",
        f"{TE_FILE}: _compute_mxfp8_support",
        (
            Gate((12, 0), None, False, "MXFP8 (for all gemm layouts) is not supported on 12.0+ architectures yet."),
            Gate((10, 0), (12, 0), True),
        ),
        "Device compute capability 10.0 or higher required for MXFP8 execution.",
        since=(2, 0),
        history=(((2, 5), (Gate((10, 0), None, True),)),),
    ),
    Rule(
        "nvfp4",
        "transformer-engine",
        f"{TE_FILE}: _compute_nvfp4_support",
        (
            Gate((10, 0), (10, 1), True),
            Gate((10, 3), (10, 4), True),
            Gate((10, 0), None, True, note=_NVFP4_DOCS),
        ),
        "Device compute capability 10.0 or higher required for NVFP4 execution.",
        since=(2, 9),
    ),
    # torchao: dynamic scaling only (torchao/float8/config.py ScalingType has DYNAMIC and DISABLED), so no
    # delayed scaling, and no 128x128 block recipe for nn.Linear training.
    Rule(
        "fp8-current",
        "torchao",
        "torchao torchao/float8 (tensorwise); torchao/utils.py is_sm_at_least_89",
        (
            Gate(
                (8, 9),
                None,
                True,
                note="torchao's float8 training has no gate of its own; its FP8 GEMM "
                "(torch._scaled_mm) needs FP8 tensor cores, compute capability 8.9+ (torchao/utils.py "
                "is_sm_at_least_89).",
            ),
        ),
        "FP8 needs compute capability 8.9 or higher (torchao/utils.py is_sm_at_least_89).",
    ),
    Rule(
        "mxfp8",
        "torchao",
        "torchao torchao/prototype/mx_formats/kernels.py (is_sm_at_least_100, CUDA >= 12.8)",
        (
            Gate((10, 0), (12, 0), True, note="Prototype (torchao docs/source/workflows/training.md, mxfp8)."),
            Gate(
                (12, 0),
                None,
                True,
                note="torchao's gate (is_sm_at_least_100) passes on 12.0+, but its docs "
                "measure MXFP8 training on B200 only; Transformer Engine refuses MXFP8 here: undocumented.",
            ),
        ),
        "MXFP8 needs compute capability 10.0 or higher (torchao/utils.py is_sm_at_least_100).",
    ),
    Rule(
        "nvfp4",
        "torchao",
        "torchao torchao/prototype/mx_formats (is_sm_at_least_100)",
        (
            Gate(
                (10, 0),
                None,
                True,
                note="torchao's docs rate NVFP4 training performance red (emulated, not "
                "optimised; docs/source/workflows/training.md, nvfp4).",
            ),
        ),
        "NVFP4 needs compute capability 10.0 or higher (torchao/utils.py is_sm_at_least_100).",
    ),
)


@dataclass(frozen=True)
class Support:
    recipe: Recipe
    card: str  # card name
    capability: Capability | None
    allowed: bool
    reason: str  # the software's refusal message, or ''
    source: str
    note: str = ""

    @property
    def capability_text(self) -> str:
        return f"{self.capability[0]}.{self.capability[1]}" if self.capability else "unknown"


def _rule(recipe: Recipe, software: Software) -> Rule | None:
    return next((r for r in RULES if r.recipe == recipe and r.software == software), None)


def support(
    card: CardSpec, recipe: Recipe, software: Software = DEFAULT_SOFTWARE, version: tuple[int, int] = TE_VERSION_READ
) -> Support:
    """Whether ``software`` (at ``version``, TE only) trains ``recipe`` on ``card``, with the rule's source."""
    return support_at(card.capability, recipe, software, version, card.name)


@functools.cache  # pure in its (hashable) arguments; asked for every card of every job on every edit
def support_at(
    cc: Capability | None,
    recipe: Recipe,
    software: Software = DEFAULT_SOFTWARE,
    version: tuple[int, int] = TE_VERSION_READ,
    card: str = "",
) -> Support:
    """As ``support``, for a compute capability."""
    rule = _rule(recipe, software)
    if rule is None:
        return Support(
            recipe,
            card,
            cc,
            False,
            f"{software} has no {RECIPE_NAMES[recipe]} recipe.",
            "torchao torchao/float8/config.py (ScalingType: DYNAMIC, DISABLED)",
        )
    if cc is None:
        return Support(recipe, card, cc, False, "compute capability unknown", rule.source)
    if software == "transformer-engine" and rule.since and version < rule.since:
        return Support(
            recipe,
            card,
            cc,
            False,
            f"Transformer Engine {version[0]}.{version[1]} predates the recipe "
            f"(first in {rule.since[0]}.{rule.since[1]}).",
            rule.source,
        )
    gates = rule.gates
    for until, older in rule.history:
        if software == "transformer-engine" and version <= until:
            gates = older
            break
    for g in gates:
        if cc >= g.low and (g.below is None or cc < g.below):
            return Support(recipe, card, cc, g.allowed, g.message, rule.source, g.note)
    return Support(recipe, card, cc, False, rule.otherwise, rule.source)


def default_fp8_recipe(cc: Capability | None) -> Recipe:
    """TE get_default_fp8_recipe(): MXFP8 where _compute_mxfp8_support passes, current scaling on 12.0+
    ("a temporary restriction until MXFP8 is supported for all gemm layouts"), else delayed scaling.
    Unknown capability: delayed scaling (what the function returns below 10.0)."""
    if support_at(cc, "mxfp8").allowed:
        return "mxfp8"
    if cc is not None and cc >= (12, 0):
        return "fp8-current"
    return "fp8-delayed"


def recipe_of(precision: str, cc: Capability | None) -> Recipe | None:
    """The recipe a job precision runs on a card of capability ``cc``: None for mixed-bf16 / pure-bf16."""
    if precision == "fp8":
        return default_fp8_recipe(cc)
    return _RECIPE_BY_NAME.get(precision)  # the recipe named (a dict: six calls per evaluation, no generator)


def supported_recipes(cards: list[CardSpec], software: Software = DEFAULT_SOFTWARE) -> list[Recipe]:
    """Recipes every card supports (a job across mixed cards gets the intersection). A fact of the catalog's cards
    and the software, so memoised on them (every job evaluation asks it: issue 24's fresh-evaluation budget)."""
    if not cards:
        return []
    return CACHE.memo("card-recipes", tuple(cards), (software,), lambda: _supported(cards, software))


def _supported(cards: list[CardSpec], software: Software) -> list[Recipe]:
    return [r for r in RECIPES if all(support(c, r, software).allowed for c in cards)]
