"""The words for a job's method and a model's size, one wording wherever they are shown: the method's name in the
editor and the views (:data:`METHOD_NAMES`: the Jobs form, generated job names, chart legends, the build sheet, the
kiosk), the short label in the planner window, the plan's text report and sheet (through present/rl_words.py, which
re-exports :func:`method_label`), the phrase in the planner's sentences (engine/planner/explain.py:
:func:`method_phrase`) and the size in both and in the editor's job names (editing/jobs.size_label).
Here, below the planner and the editor, so that both can use them and present re-uses them instead of a copy."""

from __future__ import annotations

# A method's name wherever the user picks or reads it outside the planner: the Jobs form's choice, a generated job
# name ('8B full fine-tune', as seed B's job classes say it), the fit frontier's legend, the build sheet, the kiosk's
# buttons and take-home name. One table, so a method is not "full FT" in one place and "Full" in another.
METHOD_NAMES = {"full": "Full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}


def method_name(method: str, *, capital: bool = True) -> str:
    """A method's name: "Full fine-tune", "LoRA", "QLoRA"; ``capital=False`` inside a line ("8B full fine-tune",
    "Method full fine-tune"), which lowers only a capitalised first word, never an acronym ("LoRA" stays)."""
    name = METHOD_NAMES.get(method, method)
    first = name.split(" ", 1)[0]
    if not capital and first[1:].islower():
        return name[:1].lower() + name[1:]
    return name


def method_label(method: str, objective: str = "sft") -> str:
    """A job or job class's method with its post-training objective: "lora", "full", "lora GRPO"."""
    return method if objective == "sft" else f"{method} {objective.upper()}"


def parameters_label(parameters: float) -> str:
    """A parameter count as a model's size is named: 70.6e9 -> '71B', 8.03e9 -> '8B', 3.82e9 -> '3.8B',
    4.94e8 -> '494M'."""
    if parameters >= 10e9:
        return f"{parameters / 1e9:.0f}B"
    if parameters >= 1e9:
        return f"{parameters / 1e9:.1f}".removesuffix(".0") + "B"
    return f"{parameters / 1e6:.0f}M"


# In sentences a platform team reads (the planner's reversal and one-card limits), a method is said the way seed B
# says it ("full-parameter fine-tuning above roughly 13B"); the short label above names it in lists and tables.
METHOD_PHRASES = {
    "full": "full-parameter fine-tuning",
    "lora": "low-rank (LoRA) fine-tuning",
    "qlora": "QLoRA fine-tuning",
}


def method_phrase(method: str, objective: str = "sft") -> str:
    """A method in a sentence: "full-parameter fine-tuning", "GRPO post-training by low-rank (LoRA) fine-tuning"."""
    words = METHOD_PHRASES.get(method, f"{method} fine-tuning")
    return words if objective == "sft" else f"{objective.upper()} post-training by {words}"


def band_words(low: float, high: float, unit: str, digits: int = 2) -> str:
    """A band as every view writes it, low to high with an en dash and the unit: '0.24–0.31 s', '71.7–88.3 GB'.
    One wording for the step time's and the memory's bands: the sheet, the text reports, verify and compare had
    three (a hyphen, an en dash, with or without the unit)."""
    return f"{low:,.{digits}f}–{high:,.{digits}f} {unit}"


def figure_band_words(value: float, low: float | None, high: float | None, unit: str, digits: int = 2) -> str:
    """A figure with its band after it: '0.28 s (0.24–0.31 s)'; the figure alone where it has no band."""
    band = f" ({band_words(low, high, unit, digits)})" if low is not None and high is not None else ""
    return f"{value:,.{digits}f} {unit}{band}"


def bound_words(figure: str, lower_bound: bool, *, prose: bool = False) -> str:
    """A figure as every view writes it where the engine's figure may be a lower bound (a model given by its
    parameter count only: Compute.lower_bound, FitCell.lower_bound, Route.lower_bound): '5.00 h' as it is, else
    '≥ 5.00 h' in a table and 'at least 5.00 h' in a sentence."""
    if not lower_bound:
        return figure
    return f"at least {figure}" if prose else f"≥ {figure}"
