"""Side-by-side comparison of two evaluated builds: the same jobs, their headroom, step time, stack and power;
and recipe against recipe: one job under two precisions / base-weight formats (on one build, or on two).

Everything here reads figures from ``BuildResult``s; nothing is computed again. A step time the engine calls
unknown (None) stays "unknown" in every cell and difference, never 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from configurator.catalog.cards import CardSpec
from configurator.engine.lowprecision.checks import Recipe, precision_choices, support
from configurator.engine.model.bom import BillOfMaterials, money
from configurator.engine.model.build import Build, Job
from configurator.engine.model.labels import band_words, bound_words
from configurator.engine.model.parallelism import PARALLELISM
from configurator.engine.model.result import FIT_RANK, BuildResult, CardMemory, JobResult
from configurator.engine.model.stack import PROFILES

UNKNOWN = "unknown"
ABSENT = "absent"  # a job only the other build has: one word in a cell and in the JSON, never a figure
# An FP8 base (base_weights: fp8) is read by FP8 GEMMs or dequantised; lowprecision.precision_checks gates it on
# the card's FP8 support, asked as the current-scaling recipe (TE quantization.py _compute_fp8_support).
FP8_BASE_RECIPE: Recipe = "fp8-current"
BF16_SOURCE = "BF16 on every card: no low-precision rule applies"


@dataclass(frozen=True)
class Difference:
    job: str | None  # None for build-wide rows (power, errors)
    what: str  # "headroom (GB)", "step time (s)", "status", "power (W)", "errors"
    left: str
    right: str
    better: str | None  # "left", "right" or None (equal or not comparable)
    delta: str = ""  # right minus left where both are numbers ("+17.1 GB"), "unknown" where one is unknown
    unit: str = ""  # the figures' unit ("GB", "s", "W") where the row compares numbers, "" for words
    left_value: float | None = None  # the figures themselves (None: unknown, or the job is absent)
    right_value: float | None = None

    def as_json(self) -> dict[str, object]:
        """The row for ``compare --json``: numbers under unit-suffixed keys ("left_gb", "delta_s"), null where a
        side has none; the display string only where it is a word ("absent", "unknown", a framework's name)."""
        out: dict[str, object] = {"job": self.job, "what": self.what, "better": self.better}
        if not self.unit:
            return {**out, "left": _word(self.left), "right": _word(self.right)}
        key = self.unit.lower()
        lv, rv = self.left_value, self.right_value
        out |= {f"left_{key}": lv, f"right_{key}": rv,
                f"delta_{key}": None if lv is None or rv is None else rv - lv}  # fmt: skip
        for side, value, text in (("left", lv, self.left), ("right", rv, self.right)):
            if value is None and _word(text) is not None:  # why there is no number: "absent" or "unknown"
                out[side] = _word(text)
        return out


def _word(text: str) -> str | None:
    """A cell's text for JSON: None for the empty dash."""
    return None if text in ("—", "") else text


def _fmt(v: float | None, unit: str) -> str:
    if v is None:
        return UNKNOWN if unit == "s" else "—"
    return {"s": f"{v:.2f} s", "W": f"{v:,.0f} W"}.get(unit, f"{v:,.1f} {unit}")


def _delta(a: float | None, b: float | None, unit: str) -> str:
    """Right minus left, signed, with the relative change; 'unknown' when either side is unknown."""
    if a is None or b is None:
        return UNKNOWN
    d = b - a
    text = {"s": f"{d:+.2f} s", "W": f"{d:+,.0f} W"}.get(unit, f"{d:+,.1f} {unit}")
    return text + (f" ({d / a:+.0%})" if a else "")


def _rank(a: float | None, b: float | None, tol: float, higher_is_better: bool) -> str | None:
    if a is None or b is None or abs(a - b) < tol:
        return None
    return "left" if (a > b) == higher_is_better else "right"


def _tightest(job: JobResult | None) -> CardMemory | None:
    """The job's card with the least headroom (the one that decides whether it fits)."""
    return min(job.cards, key=lambda c: c.headroom_gb, default=None) if job else None


def sharding(job: JobResult) -> str:
    """How the job spreads over its cards, in words: 'FSDP2', 'DeepSpeed ZeRO-3', 'single card'."""
    s = PARALLELISM.get(job.parallelism)
    return s.label(job.fsdp_version) if s else job.parallelism


def band_text(card: CardMemory | None) -> str:
    """The cross-validated band around the peak ('71.7–88.3 GB'), 'unknown' without one."""
    if card is None or not (card.band_low_gb or card.band_high_gb):
        return UNKNOWN
    return band_words(card.band_low_gb, card.band_high_gb, "GB", 1)


def _stack_rows(name: str, a: JobResult | None, b: JobResult | None) -> list[Difference]:
    """Framework, sharding, offload, loss, and the phase and band of the peak: shown, never ranked."""

    def word(j: JobResult | None, what: str) -> str:
        if j is None:
            return "—"
        card = _tightest(j)
        return {
            "framework": PROFILES[j.framework].label if j.framework in PROFILES else j.framework,
            "sharding": sharding(j),
            "offload": j.offload,
            "loss": j.loss,
            "peak phase": card.peak_phase if card else UNKNOWN,
            "peak band": band_text(card),
        }[what]

    return [Difference(name, what, word(a, what), word(b, what), None)
            for what in ("framework", "sharding", "offload", "loss", "peak phase", "peak band")]  # fmt: skip


def _number_row(name: str | None, what: str, a: float | None, b: float | None, unit: str, tol: float,
                higher_is_better: bool, absent: tuple[bool, bool] = (False, False)) -> Difference:  # fmt: skip
    """A row of two figures: shown, ranked and subtracted; a side whose job is absent says so, with no delta."""
    la, lb = (ABSENT if absent[0] else _fmt(a, unit)), (ABSENT if absent[1] else _fmt(b, unit))
    delta = "" if any(absent) else _delta(a, b, unit)
    return Difference(name, what, la, lb, _rank(a, b, tol, higher_is_better), delta, unit, a, b)


def _step_row(name: str, a: JobResult | None, b: JobResult | None, absent: bool = False) -> Difference:
    """``absent``: a missing job is not in that build (rather than a side with no result at all)."""
    sa, sb = (a.step_seconds if a else None), (b.step_seconds if b else None)
    row = _number_row(name, "step time", sa, sb, "s", 0.005, False, (absent and a is None, absent and b is None))

    def shown(job: JobResult | None, text: str) -> str:  # a parameter-count-only model: a lower bound
        bound = job is not None and job.compute is not None and job.compute.lower_bound and job.step_seconds
        return bound_words(text, bool(bound))

    return Difference(row.job, row.what, shown(a, row.left), shown(b, row.right), row.better, row.delta, row.unit,
                      sa, sb)  # fmt: skip


def _fit_better(a: str, b: str) -> str | None:
    """Which fit status is the better (FIT_RANK), None where they are equal."""
    return None if a == b else ("left" if FIT_RANK.get(a, -1) > FIT_RANK.get(b, -1) else "right")


def _fit_row(name: str, a: JobResult | None, b: JobResult | None, missing: str = "—") -> Difference:
    st_a, st_b = (a.status if a else missing), (b.status if b else missing)
    return Difference(name, "fit", st_a, st_b, None if a is None or b is None else _fit_better(st_a, st_b))


def _job_rows(name: str, a: JobResult | None, b: JobResult | None) -> list[Difference]:
    ha = min((c.headroom_gb for c in a.cards), default=None) if a else None
    hb = min((c.headroom_gb for c in b.cards), default=None) if b else None
    absent = (a is None, b is None)
    if any(absent):  # a job one build lacks: say so once per side, no stack rows of dashes
        return [_number_row(name, "headroom (GB, smallest card)", ha, hb, "GB", 0.05, True, absent),
                _step_row(name, a, b, absent=True), _fit_row(name, a, b, ABSENT)]  # fmt: skip
    rows = [_number_row(name, "headroom (GB, smallest card)", ha, hb, "GB", 0.05, True)]
    return [*rows, _step_row(name, a, b), _fit_row(name, a, b), *_stack_rows(name, a, b)]


def _build_rows(left: BuildResult, right: BuildResult) -> list[Difference]:
    """What compares whatever the jobs are called: the cards, the build's fit, its tightest card, power, errors."""
    ca = len(left.topology.slots) if left.topology else None
    cb = len(right.topology.slots) if right.topology else None
    ha = min((c.headroom_gb for j in left.jobs for c in j.cards), default=None)
    hb = min((c.headroom_gb for j in right.jobs for c in j.cards), default=None)
    sa, sb = left.status, right.status
    pa = left.power.total_w if left.power else None
    pb = right.power.total_w if right.power else None
    ea, eb = len(left.errors), len(right.errors)
    return [
        Difference(None, "cards", "—" if ca is None else str(ca), "—" if cb is None else str(cb), None,
                   "" if ca is None or cb is None else f"{cb - ca:+d}", "cards", ca, cb),
        Difference(None, "fit (worst job)", sa, sb, _fit_better(sa, sb)),
        _number_row(None, "headroom (GB, tightest card)", ha, hb, "GB", 0.05, True),
        _number_row(None, "power", pa, pb, "W", 1e-9, False),
        Difference(None, "errors", str(ea), str(eb), None if ea == eb else ("left" if ea < eb else "right"),
                   f"{eb - ea:+d}" if ea != eb else "", "errors", ea, eb),
    ]  # fmt: skip


def compare(left: BuildResult, right: BuildResult) -> list[Difference]:
    """The build-level rows first (they compare whatever the jobs are called), then every job of either build,
    matched by name: this build's in order, then the other's that this one lacks, each side that lacks a job
    saying ``ABSENT``."""
    rows = _build_rows(left, right)
    right_jobs = {j.name: j for j in right.jobs}
    names = [j.name for j in left.jobs] + [j.name for j in right.jobs if j.name not in {x.name for x in left.jobs}]
    left_jobs = {j.name: j for j in left.jobs}
    for name in names:
        rows += _job_rows(name, left_jobs.get(name), right_jobs.get(name))
    # step times on different rate bases are not like for like: show the bases, rank neither
    for what, la, rb in (("link rates", left.link_rates, right.link_rates),
                         ("compute rates", left.compute_rates, right.compute_rates)):  # fmt: skip
        if la != rb:
            rows.append(Difference(None, what, la, rb, None))
    return rows


def price_row(left: BillOfMaterials | None, right: BillOfMaterials | None) -> Difference:
    """The quoted total of each side (engine/model/bom.py, from the seller's price list), the lower one better; a
    side whose list leaves a part unpriced says so instead of a total that quietly leaves it out."""

    def total(bom: BillOfMaterials | None) -> tuple[str, Decimal | None]:
        if bom is None:
            return "no price list", None
        if not bom.complete:
            return f"incomplete (no price for {', '.join(bom.unpriced)})", None
        return money(bom.total, bom.currency), bom.total

    (lt, la), (rt, ra) = total(left), total(right)
    same_currency = left is not None and right is not None and left.currency == right.currency
    if la is None or ra is None or not same_currency or left is None:
        return Difference(None, "price (total)", lt, rt, None, UNKNOWN if (la is None) != (ra is None) else "")
    delta = ra - la
    text = money(delta, left.currency)
    text = ("+" + text if delta > 0 else text) + (f" ({float(delta / la):+.0%})" if la else "")
    better = None if delta == 0 else ("left" if delta > 0 else "right")
    return Difference(None, "price (total)", lt, rt, better, text)


# ---- recipe against recipe --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecipeChoice:
    """How a job computes and stores its frozen base: a ``Job.precision`` word and a ``Job.base_weights`` word."""

    precision: str = "mixed-bf16"
    base_weights: str = "bf16"

    @property
    def label(self) -> str:
        return f"{self.precision}, {self.base_weights.upper()} base"


@dataclass(frozen=True)
class RecipeOption:
    choice: RecipeChoice
    refused: str | None  # None where every card of the job runs it, else why not (card, capability, source)


def base_weight_choices(job: Job, cards: list[CardSpec]) -> dict[str, str | None]:
    """``base_weights`` words for ``job`` on ``cards``: None where allowed, else why not. An FP8 base is a LoRA
    setting on cards with FP8 support (the gate lowprecision.precision_checks applies); other methods keep theirs."""
    if job.method != "lora":
        return {job.base_weights: None}
    reasons = []
    for card in cards:
        s = support(card, FP8_BASE_RECIPE)
        if not s.allowed:
            reasons.append(f"{card.name} (compute capability {s.capability_text}): {s.reason} [{s.source}]")
    return {"bf16": None, "fp8": "; ".join(dict.fromkeys(reasons)) or None}


def recipe_options(job: Job, cards: list[CardSpec]) -> list[RecipeOption]:
    """Every precision x base-weights pair for ``job`` on ``cards``, each with why its cards refuse it (or None)."""
    bases = base_weight_choices(job, cards)
    return [RecipeOption(RecipeChoice(p, b), why_p or why_b)
            for p, why_p in precision_choices(cards).items() for b, why_b in bases.items()]  # fmt: skip


def job_cards(build: Build, job: Job, catalog_cards: dict[str, CardSpec]) -> list[CardSpec]:
    """The catalog specs of the cards ``job`` runs on (cards the catalog lacks are left out)."""
    out = []
    for slot, _ in job.card_keys:
        placed = build.card_in(slot)
        if placed is not None and placed.card in catalog_cards:
            out.append(catalog_cards[placed.card])
    return out


def with_recipe(build: Build, job_name: str, choice: RecipeChoice) -> Build:
    """``build`` with the job called ``job_name`` run under ``choice`` (a what-if for the comparison, not an
    edit of the user's build); unchanged when it has no such job."""
    i = build.job_index(job_name)
    if i is None:
        return build
    job = build.jobs[i].model_copy(update={"precision": choice.precision, "base_weights": choice.base_weights})
    job = Job.model_validate(job.model_dump())  # refuses a word the build file would refuse
    return build.model_copy(update={"jobs": [*build.jobs[:i], job, *build.jobs[i + 1 :]]})


def _card_rows(name: str, a: JobResult | None, b: JobResult | None) -> list[Difference]:
    """Per card, by position: which card, its peak reserved, band, headroom and the phase that sets the peak."""
    ca, cb = (a.cards if a else []), (b.cards if b else [])
    rows: list[Difference] = []
    for k in range(max(len(ca), len(cb))):
        x, y = (ca[k] if k < len(ca) else None), (cb[k] if k < len(cb) else None)
        tag = f"card {k + 1}: " if max(len(ca), len(cb)) > 1 else ""

        def where(c: CardMemory | None) -> str:
            return f"slot {c.slot} · {c.card_name}" + (f" ({c.mig})" if c.mig else "") if c else "—"

        px, py = (x.peak_reserved_gb if x else None), (y.peak_reserved_gb if y else None)
        hx, hy = (x.headroom_gb if x else None), (y.headroom_gb if y else None)
        rows += [
            Difference(name, f"{tag}card", where(x), where(y), None),
            Difference(name, f"{tag}peak reserved", _fmt(px, "GB"), _fmt(py, "GB"), _rank(px, py, 0.05, False),
                       _delta(px, py, "GB")),
            Difference(name, f"{tag}peak band", band_text(x), band_text(y), None),
            Difference(name, f"{tag}headroom", _fmt(hx, "GB"), _fmt(hy, "GB"), _rank(hx, hy, 0.05, True),
                       _delta(hx, hy, "GB")),
            Difference(name, f"{tag}peak phase", x.peak_phase if x else "—", y.peak_phase if y else "—", None),
        ]  # fmt: skip
    return rows


def support_source(job: JobResult | None) -> str:
    """Where the rule that lets the job's cards run its recipe comes from (the engine's PrecisionInfo.source)."""
    if job is None:
        return "—"
    if job.precision is None:
        return UNKNOWN
    return job.precision.source or BF16_SOURCE


def compare_recipes(job_name: str, left: BuildResult, right: BuildResult, left_choice: RecipeChoice,
                    right_choice: RecipeChoice) -> list[Difference]:  # fmt: skip
    """One job under two recipes (each side's result evaluated with its choice, ``with_recipe``): the recipe and
    the source of its support rule, memory per card, step time and its difference, and the fit."""
    a, b = left.job(job_name), right.job(job_name)
    rows = [
        Difference(job_name, "recipe", left_choice.label, right_choice.label, None),
        Difference(job_name, "recipe in effect", _recipe_word(a), _recipe_word(b), None),
        Difference(job_name, "support source", support_source(a), support_source(b), None),
    ]
    return [*rows, *_card_rows(job_name, a, b), _step_row(job_name, a, b), _fit_row(job_name, a, b)]


def _recipe_word(job: JobResult | None) -> str:
    """The recipe the engine resolved ('fp8-delayed' for 'fp8' on a Hopper card), BF16 where none."""
    if job is None:
        return "—"
    if job.precision is None:
        return UNKNOWN
    return job.precision.recipe or "BF16"
