"""The roofline's points (engine/time/compute.py _make_matmuls): a mixture-of-experts MLP point is one expert's GEMM
over the tokens routed to it (tokens x top-k / experts, as the per-op model times it: steptime/ops.py), not over
every token of the micro-batch; a dense model's MLP sees them all."""

from __future__ import annotations

import pytest

from configurator.engine.evaluate import evaluate
from configurator.engine.model.build import Build
from configurator.engine.model.result import MatmulIntensity


def _points(model: str, card: str = "h100-sxm", **job: object) -> dict[str, MatmulIntensity]:
    result = evaluate(Build.model_validate({
        "chassis": "hgx-8", "cards": [{"slot": 1, "card": card}],
        "jobs": [{"name": "t", "model": model, "method": "lora", "sequence_length": 2048, "cards": [1], **job}]}))
    compute = result.jobs[0].compute
    assert compute is not None
    return {m.name: m for m in compute.matmuls}


def test_an_expert_gemm_sees_its_routed_tokens() -> None:
    """gpt-oss-20b at 2,048 tokens, top-4 of 32 experts: 256 rows an expert; 2 x 256 x 2880 x 2880 FLOPs over
    2 B x (256 x 2880 + 2880 x 2880 + 256 x 2880) = 217.4 FLOP/byte, under the H100 SXM's ridge (989.5 TFLOPS over
    3.35 TB/s = 295): memory-bound. Counting all 2,048 tokens gave 845.5, compute-bound."""
    points = _points("gpt-oss-20b")
    up = points["MLP up-projection"]
    assert up.intensity == pytest.approx(256 * 2880 / (256 + 2880 + 256), rel=1e-6)
    assert up.bound == {"h100-sxm": "memory"}
    # the attention projection still sees every token
    assert points["attention q-projection"].bound == {"h100-sxm": "compute"}
    # the point follows the micro-batch: 4 sequences route 1,024 tokens to each expert
    assert _points("gpt-oss-20b", micro_batch_size=4)["MLP up-projection"].intensity > up.intensity * 2


def test_a_dense_mlp_sees_every_token() -> None:
    up = _points("llama-3.1-8b")["MLP up-projection"]
    assert up.intensity == pytest.approx(2048 * 4096 * 14336 / (2048 * 4096 + 4096 * 14336 + 2048 * 14336), rel=1e-6)


def test_a_card_with_an_estimated_rate_classes_its_ops_at_that_rate() -> None:
    """The RTX PRO 6000 Server publishes no dense BF16 rate; the step is timed at the catalog's estimate (the default
    compute_rates: estimated), so its ops are classed against the ridge of that estimate and say so; with published
    rates only, nothing times the step and nothing is classed."""
    from configurator.catalog.loader import default_catalog

    card = default_catalog().cards["rtx-pro-6000-server"]
    assert not card.bf16_dense_tflops.value and card.bf16_dense_tflops_estimate is not None
    rate, bw = card.bf16_dense_tflops_estimate.value, card.memory_bandwidth_gb_s.value
    assert rate and bw
    build = {"chassis": "generic-server-8", "cards": [{"slot": 1, "card": card.id}],
             "jobs": [{"name": "t", "model": "llama-3.1-8b", "method": "lora", "cards": [1]}]}
    compute = evaluate(Build.model_validate(build)).jobs[0].compute
    assert compute is not None and compute.seconds_per_step
    assert compute.card_ops_per_byte == {card.id: pytest.approx(rate * 1e12 / (bw * 1e9))}
    assert compute.estimated_ridge_cards == [card.id]
    assert all(set(m.bound) == {card.id} for m in compute.matmuls)
    published = evaluate(Build.model_validate({**build, "assumptions": {"compute_rates": "published"}})).jobs[0]
    assert published.compute is not None and all(not m.bound for m in published.compute.matmuls)
