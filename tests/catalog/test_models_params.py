"""Model catalog: exact parameter counts, LoRA trainable counts, config.json import and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from configurator.catalog.errors import FileError
from configurator.catalog.hf_config import load_hf_config
from configurator.catalog.loader import default_catalog
from configurator.catalog.models import (
    LinearModule,
    ModelSpec,
    ParamCounts,
    load_models_yaml,
    model_from_hf_config,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parents[1] / "fixtures" / "hf_configs"


@pytest.fixture(scope="module")
def catalog() -> dict[str, ModelSpec]:
    data = yaml.safe_load((ROOT / "specs" / "models.yaml").read_text(encoding="utf-8"))
    return {m.id: m for m in load_models_yaml(data)}


# Totals from the models' safetensors metadata / model cards (brief of this catalog).
CATALOG_TOTALS = {
    "llama-3.1-8b": 8_030_261_248,
    "llama-3.3-70b": 70_553_706_496,
    "qwen3-32b": 32_762_123_264,
    "llama-3.2-1b": 1_235_814_400,
    "llama-3.2-3b": 3_212_749_824,
    "mistral-7b": 7_241_732_096,  # v0.1
    "llama-2-7b": 6_738_415_616,
    "llama-2-13b": 13_015_864_320,
    "mixtral-8x7b": 46_702_792_704,
    "qwen3-8b": 8_190_735_360,
    "qwen3-14b": 14_768_307_200,
    "gemma-2-9b": 9_241_705_984,
    "phi-3-mini": 3_821_079_552,
    "phi-3-mini-128k": 3_821_079_552,
    "qwen2.5-7b": 7_615_616_512,
    "yi-34b": 34_388_917_248,  # from its config; the model card rounds to 34.4B
    "generic-13b": 13_015_864_320,  # Llama-2-13B-like by construction
    "seed-b-30b": 30_000_000_000,
    "generic-8b": 8_000_000_000,
    "generic-13b-params": 13_000_000_000,
    # late-2026 additions: safetensors metadata of each repo (Hub "Model size"), vision towers included
    "qwen3-30b-a3b": 30_532_122_624,
    "qwen3-235b-a22b": 235_093_634_560,
    "gpt-oss-20b": 20_914_757_184,  # model card: 20.91B
    "gpt-oss-120b": 116_829_156_672,  # model card: 116.83B
    "gemma-3-4b": 4_300_079_472,
    "gemma-3-12b": 12_187_325_040,
    "gemma-3-27b": 27_432_406_640,
    "mistral-small-24b": 23_572_403_200,
    "phi-4": 14_659_507_200,
    "llama-3.2-11b-vision": 10_670_220_835,
    "qwen2.5-vl-7b": 8_292_166_656,
    "deepseek-r1-distill-qwen-32b": 32_763_876_352,
}

# Active parameters as each model card states them, with the card's convention on the input embedding
# (model_spec.ModelSpec.active_params): (billions, embedding counted).
PUBLISHED_ACTIVE = {
    "qwen3-30b-a3b": (3.353, True),  # Qwen3 model card: "30.5B in total and 3.3B activated" (both truncated:
    # 30.53B, 3.353B; see test_qwen3_moe_card_truncates)
    "qwen3-235b-a22b": (22.0, True),  # 235B total, 22B activated
    "mixtral-8x7b": (12.9, True),  # Mistral AI: 46.7B total, 12.9B active per token
    "gpt-oss-20b": (3.61, False),  # gpt-oss model card (arXiv 2508.10925) table 1
    "gpt-oss-120b": (5.13, False),
}


def test_catalog_has_exactly_the_expected_models(catalog: dict[str, ModelSpec]) -> None:
    assert set(catalog) == set(CATALOG_TOTALS)


@pytest.mark.parametrize(("model_id", "total"), CATALOG_TOTALS.items())
def test_catalog_total_is_exact(catalog: dict[str, ModelSpec], model_id: str, total: int) -> None:
    assert catalog[model_id].param_counts().total == total


@pytest.mark.parametrize("model_id", CATALOG_TOTALS)
def test_param_counts_add_up(catalog: dict[str, ModelSpec], model_id: str) -> None:
    c = catalog[model_id].param_counts()
    assert c.total == c.embedding + c.lm_head + c.block_linear + c.other + c.vision
    assert min(c.embedding, c.lm_head, c.block_linear, c.other) >= 0


def test_param_counts_rejects_a_sum_that_does_not_add_up() -> None:
    with pytest.raises(ValueError, match="do not add up"):
        ParamCounts(total=10, embedding=1, lm_head=1, block_linear=1, other=1)


@pytest.mark.parametrize(
    ("model_id", "billions"), [("llama-3.1-8b", 8.03), ("qwen3-32b", 32.8), ("llama-3.3-70b", 70.6)]
)
def test_seed_a_sizes(catalog: dict[str, ModelSpec], model_id: str, billions: float) -> None:
    total = catalog[model_id].param_counts().total
    assert round(total / 1e9, 2 if billions < 10 else 1) == billions


def test_parts_of_llama_3_1_8b(catalog: dict[str, ModelSpec]) -> None:
    c = catalog["llama-3.1-8b"].param_counts()
    assert c.embedding == c.lm_head == 128_256 * 4096
    assert c.other == 32 * 2 * 4096 + 4096  # two RMSNorms per layer + final norm
    assert c.block_linear == 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)


def test_tied_models_have_no_lm_head(catalog: dict[str, ModelSpec]) -> None:
    for model_id in ("llama-3.2-1b", "llama-3.2-3b", "gemma-2-9b"):
        assert catalog[model_id].param_counts().lm_head == 0, model_id
    assert catalog["llama-3.1-8b"].param_counts().lm_head > 0


def test_qwen2_bias_is_on_q_k_v_only(catalog: dict[str, ModelSpec]) -> None:
    mods = {m.name: m for m in catalog["qwen2.5-7b"].linear_modules()}
    assert mods["q_proj"].bias and mods["k_proj"].bias and mods["v_proj"].bias
    assert not mods["o_proj"].bias and not mods["gate_proj"].bias
    c = catalog["qwen2.5-7b"].param_counts()
    assert c.other == 28 * (2 * 3584 + 3584 + 2 * 512) + 3584  # norms + q/k/v biases + final norm


def test_qwen3_query_width_comes_from_head_dim(catalog: dict[str, ModelSpec]) -> None:
    mods = {m.name: m for m in catalog["qwen3-32b"].linear_modules()}
    assert (mods["q_proj"].in_features, mods["q_proj"].out_features) == (5120, 8192)
    assert (mods["o_proj"].in_features, mods["o_proj"].out_features) == (8192, 5120)
    assert catalog["qwen3-32b"].param_counts().other == 64 * (2 * 5120 + 2 * 128) + 5120  # + q/k norms


def test_mixtral_experts_and_router(catalog: dict[str, ModelSpec]) -> None:
    m = catalog["mixtral-8x7b"]
    mods = {x.name: x for x in m.linear_modules()}
    assert mods["experts.w1"].count == 32 * 8 and mods["experts.w1"].group == "expert"
    assert (mods["experts.w2"].in_features, mods["experts.w2"].out_features) == (14336, 4096)
    assert (mods["gate"].in_features, mods["gate"].out_features, mods["gate"].group) == (4096, 8, "router")
    assert m.tokens_ffn_width == 2 * 14336


# ---- LoRA trainable ------------------------------------------------------------------------------------

LORA_CASES = [
    ("llama-3.1-8b", 16, "all-linear", 41_943_040),  # seed A: 41.9 M
    ("qwen3-32b", 16, "all-linear", 134_217_728),  # seed A: 134.2 M
    ("llama-3.3-70b", 16, "all-linear", 207_093_760),  # seed A: 207.1 M
    ("llama-2-7b", 8, "qv", 4_194_304),  # LitGPT measured
    ("llama-2-13b", 8, "qv", 6_553_600),  # LitGPT measured
    ("llama-3.2-3b", 32, "qv", 9_175_040),  # PEFT print_trainable_parameters
    ("llama-2-7b", 8, ["q_proj", "v_proj"], 4_194_304),
    ("llama-3.1-8b", 16, "attention", 32 * 16 * (2 * (4096 + 4096) + 2 * (4096 + 1024))),
    ("seed-b-30b", 16, "all-linear", 150_000_000),  # seed B: 0.5 % of 30e9
    ("seed-b-30b", 64, "qv", 150_000_000),  # params-only: targets do not matter
    ("generic-8b", 16, "all-linear", 40_000_000),
]


@pytest.mark.parametrize(("model_id", "rank", "targets", "expected"), LORA_CASES)
def test_lora_trainable(
    catalog: dict[str, ModelSpec], model_id: str, rank: int, targets: str | list[str], expected: int
) -> None:
    assert catalog[model_id].lora_trainable(rank, targets) == expected


def test_seed_a_lora_rounded(catalog: dict[str, ModelSpec]) -> None:
    assert round(catalog["llama-3.1-8b"].lora_trainable(16, "all-linear") / 1e6, 1) == 41.9
    assert round(catalog["qwen3-32b"].lora_trainable(16, "all-linear") / 1e6, 1) == 134.2
    assert round(catalog["llama-3.3-70b"].lora_trainable(16, "all-linear") / 1e6, 1) == 207.1


def test_phi3_fused_modules(catalog: dict[str, ModelSpec]) -> None:
    m = catalog["phi-3-mini"]
    mods = {x.name: x for x in m.linear_modules()}
    assert mods["qkv_proj"].out_features == 3 * 3072 and mods["gate_up_proj"].out_features == 2 * 8192
    assert m.lora_trainable(8, ["qkv_proj"]) == 32 * 8 * (3072 + 3 * 3072)
    assert m.lora_trainable(8, "attention") == 32 * 8 * (3072 + 3 * 3072 + 3072 + 3072)
    with pytest.raises(ValueError, match="fused qkv_proj"):
        m.lora_trainable(8, "qv")


def test_all_linear_on_moe_includes_experts_not_router(catalog: dict[str, ModelSpec]) -> None:
    m = catalog["mixtral-8x7b"]
    per_layer = 16 * (2 * (4096 + 4096) + 2 * (4096 + 1024) + 8 * 3 * (4096 + 14336))
    assert m.lora_trainable(16, "all-linear") == 32 * per_layer
    assert m.lora_trainable(16, ["w1", "w3"]) == 32 * 8 * 2 * 16 * (4096 + 14336)
    assert m.lora_trainable(16, ["gate"]) == 32 * 16 * (4096 + 8)  # the router, when asked for by name


def test_unknown_lora_module_lists_the_model_modules(catalog: dict[str, ModelSpec]) -> None:
    with pytest.raises(ValueError, match="c_attn") as info:
        catalog["llama-3.1-8b"].lora_trainable(16, ["q_proj", "c_attn"])
    assert "q_proj" in str(info.value) and "down_proj" in str(info.value)
    with pytest.raises(ValueError, match="unknown LoRA target"):
        catalog["llama-3.1-8b"].lora_trainable(16, "everything")
    with pytest.raises(ValueError, match="rank"):
        catalog["llama-3.1-8b"].lora_trainable(0, "all-linear")


def test_params_only_models(catalog: dict[str, ModelSpec]) -> None:
    m = catalog["seed-b-30b"]
    assert m.is_params_only and m.linear_modules() == []
    assert not catalog["llama-3.1-8b"].is_params_only
    with pytest.raises(ValueError, match="parameter count only"):
        _ = m.tokens_ffn_width


def test_tokens_ffn_width(catalog: dict[str, ModelSpec]) -> None:
    assert catalog["llama-3.1-8b"].tokens_ffn_width == 14336
    assert catalog["phi-3-mini"].tokens_ffn_width == 8192


# ---- config.json import ----------------------------------------------------------------------------------

FIXTURE_TOTALS = {
    "llama-3.1-8b": ("llama", 8_030_261_248),
    "qwen2.5-0.5b": ("qwen2", 494_032_768),
    "gemma-2-2b": ("gemma2", 2_614_341_888),
    "phi-3-mini-4k-instruct": ("phi3", 3_821_079_552),
    "mixtral-8x7b": ("mixtral", 46_702_792_704),
    "qwen1.5-moe-a2.7b": ("qwen2_moe", 14_315_784_192),
    "qwen3-30b-a3b": ("qwen3_moe", 30_532_122_624),
}


@pytest.mark.parametrize(("stem", "expected"), FIXTURE_TOTALS.items())
def test_import_fixture(stem: str, expected: tuple[str, int]) -> None:
    path = FIXTURES / f"{stem}.json"
    spec = load_hf_config(path)
    assert spec.id == stem
    assert spec.architecture == expected[0]
    assert spec.source == str(path)
    c = spec.param_counts()
    assert c.total == expected[1]
    assert c.total == c.embedding + c.lm_head + c.block_linear + c.other + c.vision


def test_fixture_matches_catalog_entry(catalog: dict[str, ModelSpec]) -> None:
    imported = load_hf_config(FIXTURES / "llama-3.1-8b.json")
    assert imported.linear_modules() == catalog["llama-3.1-8b"].linear_modules()


def test_gemma2_ties_embeddings_by_default() -> None:
    spec = load_hf_config(FIXTURES / "gemma-2-2b.json")  # config.json has no tie_word_embeddings key
    assert spec.tie_word_embeddings and spec.param_counts().lm_head == 0
    assert spec.norms_per_layer == 4


def test_qwen2_moe_structure() -> None:
    spec = load_hf_config(FIXTURES / "qwen1.5-moe-a2.7b.json")
    mods = {m.name: m for m in spec.linear_modules()}
    assert mods["experts.gate_proj"].count == 24 * 60
    assert mods["shared_expert.down_proj"].in_features == 5632
    assert (mods["shared_expert_gate"].out_features, mods["shared_expert_gate"].group) == (1, "router")
    assert spec.tokens_ffn_width == 4 * 1408 + 5632


def test_qwen_moe_mlp_only_layers_and_sparse_step() -> None:
    base = json.loads((FIXTURES / "qwen1.5-moe-a2.7b.json").read_text())
    dense_mlp = 3 * 2048 * 5632
    sparse_mlp = 2048 * 60 + 60 * 3 * 2048 * 1408 + 3 * 2048 * 5632 + 2048
    full = model_from_hf_config(base, id="a", name="a", source="test").param_counts().total
    two_dense = (
        model_from_hf_config({**base, "mlp_only_layers": [0, 5]}, id="b", name="b", source="test").param_counts().total
    )
    assert full - two_dense == 2 * (sparse_mlp - dense_mlp)
    every_other = model_from_hf_config({**base, "decoder_sparse_step": 2}, id="c", name="c", source="test")
    assert every_other.moe_layers == 12 and every_other.dense_layers == 12


def test_qwen3_moe_has_no_shared_expert() -> None:
    spec = load_hf_config(FIXTURES / "qwen3-30b-a3b.json")
    assert not any(m.name.startswith("shared_expert") for m in spec.linear_modules())
    assert spec.qk_norm and spec.tokens_ffn_width == 8 * 768


def test_id_from_name_or_path_and_hf_cache(tmp_path: Path) -> None:
    config = json.loads((FIXTURES / "llama-3.1-8b.json").read_text())
    p = tmp_path / "whatever" / "config.json"
    p.parent.mkdir()
    p.write_text(json.dumps({**config, "_name_or_path": "meta-llama/Llama-3.1-8B"}))
    spec = load_hf_config(p)
    assert (spec.id, spec.name) == ("llama-3.1-8b", "Llama-3.1-8B")
    snap = tmp_path / "models--meta-llama--Llama-3.1-8B" / "snapshots" / ("a" * 40)
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps(config))
    assert load_hf_config(snap / "config.json").id == "llama-3.1-8b"
    plain = tmp_path / "My Model"
    plain.mkdir()
    (plain / "config.json").write_text(json.dumps(config))
    assert load_hf_config(plain / "config.json").id == "my-model"


# ---- bad inputs: always FileError ---------------------------------------------------------------------


def _bad(tmp_path: Path, text: str) -> FileError:
    p = tmp_path / "config.json"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(FileError) as info:
        load_hf_config(p)
    err = info.value
    assert err.path == str(p) and err.problems and all(pr.message for pr in err.problems)
    return err


def _llama() -> dict[str, object]:
    return json.loads((FIXTURES / "llama-3.1-8b.json").read_text())


def test_malformed_json(tmp_path: Path) -> None:
    err = _bad(tmp_path, '{\n  "model_type": "llama",\n  "hidden_size": 4096,,\n}')
    assert "not valid JSON" in err.problems[0].message and err.problems[0].line == 3


def test_unknown_model_type(tmp_path: Path) -> None:
    err = _bad(tmp_path, json.dumps({**_llama(), "model_type": "gpt2"}, indent=2))
    assert err.problems[0].field == "model_type"
    assert "gpt2" in err.problems[0].message and "qwen3_moe" in err.problems[0].message
    assert err.problems[0].line is not None


def test_missing_hidden_size(tmp_path: Path) -> None:
    config = _llama()
    del config["hidden_size"]
    err = _bad(tmp_path, json.dumps(config, indent=2))
    assert err.problems[0].field == "hidden_size" and "missing" in err.problems[0].message


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[1, 2, 3]",
        '"just a string"',
        json.dumps({"hidden_size": 4096}),  # no model_type
        json.dumps({**_llama(), "hidden_size": "4096"}),
        json.dumps({**_llama(), "hidden_size": 4096.5}),
        json.dumps({**_llama(), "num_hidden_layers": 0}),
        json.dumps({**_llama(), "num_hidden_layers": True}),
        json.dumps({**_llama(), "tie_word_embeddings": "no"}),
        json.dumps({**_llama(), "num_key_value_heads": 7}),  # 32 heads not a multiple of 7
        json.dumps({**_llama(), "model_type": "qwen2", "num_attention_heads": 30}),  # 4096 / 30
        json.dumps({**_llama(), "model_type": "mixtral"}),  # no num_local_experts
        json.dumps({**_llama(), "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 9}),
        json.dumps({**_llama(), "model_type": ["llama"]}),
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_bad_configs_raise_file_error(tmp_path: Path, text: str) -> None:
    _bad(tmp_path, text)


def test_missing_file_and_binary_file(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="not found"):
        load_hf_config(tmp_path / "nope.json")
    p = tmp_path / "bin.json"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FileError):
        load_hf_config(p)


# ---- models.yaml validation -----------------------------------------------------------------------

GOOD_CONFIG = {
    "model_type": "llama",
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "vocab_size": 100,
}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"id": "x", "name": "X", "source": "seed", "config": {**GOOD_CONFIG, "hiden_size": 1}},
            "hiden_size",
        ),
        ({"id": "x", "name": "X", "source": "seed", "config": {**GOOD_CONFIG, "model_type": "bert"}}, "bert"),
        ({"id": "x", "name": "X", "source": "seed"}, "exactly one"),
        ({"id": "x", "name": "X", "source": "seed", "parameters": -5}, "parameters"),
        (
            {"id": "x", "name": "X", "source": "seed", "parameters": 5, "adapter_fraction": 2},
            "adapter_fraction",
        ),
        ({"id": "x", "name": "X", "source": "seed", "parameters": 5, "colour": "red"}, "colour"),
        ({"id": "x", "source": "seed", "parameters": 5}, "name"),
    ],
)
def test_models_yaml_bad_entry_names_the_entry(entry: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        load_models_yaml({"schema_version": 1, "models": [entry]})
    assert "'x'" in str(info.value)


def test_models_yaml_duplicate_ids_and_schema() -> None:
    entry = {"id": "x", "name": "X", "source": "seed", "config": GOOD_CONFIG}
    with pytest.raises(ValueError, match="twice"):
        load_models_yaml({"schema_version": 1, "models": [entry, entry]})
    with pytest.raises(ValueError, match="schema_version"):
        load_models_yaml({"schema_version": 2, "models": [entry]})
    (small,) = load_models_yaml({"schema_version": 1, "models": [entry]})
    assert small.head_dim == 16 and small.num_key_value_heads == 4


def test_linear_module_is_a_frozen_record() -> None:
    m = LinearModule("q_proj", 4, 8, 2, True, "attention")
    assert m.weights == 64 and m.biases == 16 and m.short_name == "q_proj"
    with pytest.raises(AttributeError):
        m.count = 3  # type: ignore[misc]


# ---- late-2026 models: MoE, vision towers, active counts ---------------------------------------------------


@pytest.mark.parametrize(("model_id", "published"), PUBLISHED_ACTIVE.items())
def test_active_params_match_the_model_cards(
    catalog: dict[str, ModelSpec], model_id: str, published: tuple[float, bool]
) -> None:
    billions, with_embedding = published
    active = catalog[model_id].active_params(embedding=with_embedding)
    assert abs(active / 1e9 - billions) / billions < 0.01, active


def test_qwen3_moe_card_truncates(catalog: dict[str, ModelSpec]) -> None:
    """The Qwen3-30B-A3B card gives 30.5B total, 29.9B non-embedding (without embedding and lm_head), 3.3B
    activated: each is our count cut (not rounded) to one decimal."""
    m = catalog["qwen3-30b-a3b"]
    c = m.param_counts()
    cut = [int(x / 1e8) / 10 for x in (c.total, c.total - c.embedding - c.lm_head, m.active_params())]
    assert cut == [30.5, 29.9, 3.3]


def test_dense_models_are_all_active(catalog: dict[str, ModelSpec]) -> None:
    m = catalog["phi-4"]
    assert m.active_params() == m.total_params
    assert m.active_params(embedding=False) == m.total_params - m.param_counts().embedding


def test_every_new_model_has_a_family(catalog: dict[str, ModelSpec]) -> None:
    new = list(CATALOG_TOTALS)[list(CATALOG_TOTALS).index("qwen3-30b-a3b") :]
    assert all(catalog[i].family for i in new)


def test_gpt_oss_layout(catalog: dict[str, ModelSpec]) -> None:
    m = catalog["gpt-oss-20b"]
    mods = {x.name: x for x in m.linear_modules()}
    up = mods["experts.gate_up_proj"]
    assert (up.in_features, up.out_features, up.count, up.bias) == (2880, 2 * 2880, 24 * 32, True)
    assert mods["router"].bias and mods["router"].group == "router"
    assert mods["q_proj"].bias and mods["o_proj"].bias
    assert m.expert_format == "mxfp4"
    # all 32 experts resident: 24 layers x 32 x (gate_up + down, weights and biases)
    assert m.expert_params() == 24 * 32 * (2880 * 5760 + 5760 + 2880 * 2880 + 2880)


def test_mxfp4_checkpoint_size(catalog: dict[str, ModelSpec]) -> None:
    """Expert weights at 4.25 bits (4-bit values + one 8-bit scale per 32), their biases and the rest bf16."""
    m = catalog["gpt-oss-20b"]
    weights = 24 * 32 * (2880 * 5760 + 2880 * 2880)
    assert m.weight_bytes_as_shipped() == weights * 4.25 / 8 + (m.total_params - weights) * 2
    assert round(m.weight_bytes_as_shipped() / 1e9, 1) == 13.8
    assert round(catalog["gpt-oss-120b"].weight_bytes_as_shipped() / 1e9, 1) == 65.2
    q = catalog["qwen3-30b-a3b"]
    assert q.weight_bytes_as_shipped() == 2 * q.total_params


def test_qwen3_moe_all_layers_sparse(catalog: dict[str, ModelSpec]) -> None:
    m = catalog["qwen3-30b-a3b"]
    assert (m.moe_layers, m.dense_layers, m.num_experts, m.num_experts_per_tok) == (48, 0, 128, 8)
    assert m.tokens_ffn_width == 8 * 768


@pytest.mark.parametrize(
    ("model_id", "encoder", "projector"),
    [
        ("gemma-3-4b", 416_866_032, 1152 * 2560 + 1152),  # SigLIP so400m at 896 px + mm_input_projection
        ("qwen2.5-vl-7b", 631_975_680, 1280 + 5120 * 5120 + 5120 + 5120 * 3584 + 3584),
    ],
)
def test_vision_tower_parts(catalog: dict[str, ModelSpec], model_id: str, encoder: int, projector: int) -> None:
    v = catalog[model_id].vision
    assert v is not None
    assert (v.encoder_params(), v.projector_params()) == (encoder, projector)


def test_vision_language_totals_are_text_plus_tower(catalog: dict[str, ModelSpec]) -> None:
    vl, text = catalog["qwen2.5-vl-7b"], catalog["qwen2.5-7b"]
    assert vl.total_params - vl.param_counts().vision == text.total_params


@pytest.mark.parametrize(
    ("model_id", "size", "tokens", "encoder_tokens"),
    [
        ("qwen2.5-vl-7b", (1024, 1024), 37 * 37, 74 * 74),  # smart_resize to 1036 px: 37 tokens of 28 px a side
        ("qwen2.5-vl-7b", (448, 448), 256, 1024),
        ("gemma-3-4b", (1024, 1024), 256, 4096),  # resized to 896 px, pooled to 256 tokens
        ("llama-3.2-11b-vision", (1024, 1024), 0, 4 * 1601),  # 4 tiles of 560 px, cross-attended
    ],
)
def test_image_tokens(
    catalog: dict[str, ModelSpec], model_id: str, size: tuple[int, int], tokens: int, encoder_tokens: int
) -> None:
    v = catalog[model_id].vision
    assert v is not None
    assert v.image_tokens(*size) == tokens
    assert v.encoder_tokens(*size) == encoder_tokens


def test_image_of_no_size_is_refused(catalog: dict[str, ModelSpec]) -> None:
    v = catalog["qwen2.5-vl-7b"].vision
    assert v is not None
    with pytest.raises(ValueError, match="positive size"):
        v.image_tokens(0, 512)


def test_imported_vl_config_reads_the_tower() -> None:
    config = {
        "model_type": "qwen2_5_vl", "hidden_size": 3584, "num_hidden_layers": 28, "intermediate_size": 18944,
        "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064,
        "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16,
                          "out_hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2,
                          "temporal_patch_size": 2},
    }  # fmt: skip
    m = model_from_hf_config(config, id="vl", name="VL", source="test")
    assert m.total_params == 8_292_166_656


def test_bad_vision_config_names_the_key() -> None:
    config = {
        "model_type": "qwen2_5_vl", "hidden_size": 3584, "num_hidden_layers": 28, "intermediate_size": 18944,
        "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064,
        "vision_config": {"depth": 32, "hidden_size": -1, "intermediate_size": 3420, "num_heads": 16,
                          "patch_size": 14},
    }  # fmt: skip
    with pytest.raises(ValueError, match=r"vision_config\.hidden_size"):
        model_from_hf_config(config, id="vl", name="VL", source="test")


def test_catalog_refuses_an_unknown_vision_key() -> None:
    entry = yaml.safe_load((ROOT / "specs" / "models.yaml").read_text(encoding="utf-8"))
    raw = next(e for e in entry["models"] if e["id"] == "qwen2.5-vl-7b")
    raw["config"]["vision_config"]["patch_sise"] = 14
    with pytest.raises(ValueError, match=r"vision_config\.patch_sise"):
        load_models_yaml({"schema_version": 1, "models": [raw]})


def test_gemma3_config_as_published_reads_with_the_class_defaults() -> None:
    """gemma-3-4b-it's config.json leaves heads, KV heads, head_dim and vocabulary to Gemma3TextConfig."""
    config = {
        "model_type": "gemma3", "mm_tokens_per_image": 256,
        "text_config": {"model_type": "gemma3_text", "hidden_size": 2560, "intermediate_size": 10240,
                        "num_hidden_layers": 34},
        "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
                          "num_hidden_layers": 27, "num_attention_heads": 16, "patch_size": 14, "image_size": 896},
    }  # fmt: skip
    assert model_from_hf_config(config, id="g", name="G", source="test").total_params == 4_300_079_472


def test_a_text_config_error_names_the_nested_key() -> None:
    config = {"model_type": "mllama", "text_config": {"model_type": "mllama_text_model"}}
    with pytest.raises(ValueError, match=r"text_config\.hidden_size"):
        model_from_hf_config(config, id="m", name="M", source="test")


def test_gpt_oss_slides_a_128_token_window_on_every_other_layer() -> None:
    """GptOssConfig (transformers 5.24 configuration_gpt_oss.py): sliding_window 128 and layer_types
    "sliding_attention" where (i + 1) % 2, whether or not the config.json spells them out (the catalog's omits them)."""
    model = default_catalog().model("gpt-oss-20b")
    assert model.sliding_window == 128
    assert model.sliding_layers == tuple(range(0, model.num_layers, 2))


@pytest.mark.parametrize("model_id", ["gemma-3-4b", "gemma-3-12b", "gemma-3-27b"])
def test_gemma_3_slides_its_released_1024_token_window_on_five_layers_of_six(model_id: str) -> None:
    """The released Gemma 3 configs set sliding_window 1024 (Gemma3TextConfig's default is 4096): the catalog's
    config carries it, and the reader takes it from a text_config."""
    model = default_catalog().model(model_id)
    assert model.sliding_window == 1024
    assert model.sliding_layers == tuple(i for i in range(model.num_layers) if (i + 1) % 6)  # type: ignore[arg-type]


def test_gemma_2_caps_its_attention_scores_and_the_cap_is_read_from_the_config() -> None:
    """attn_logit_softcapping: the released Gemma 2 configs' 50.0, Gemma2Config's default where a config leaves it
    out, none where it is null or for Gemma 3 (Gemma3TextConfig's default None); a cap that is no positive number
    is refused by name."""
    assert default_catalog().model("gemma-2-9b").attn_logit_softcapping == 50.0
    assert load_hf_config(FIXTURES / "gemma-2-2b.json").attn_logit_softcapping == 50.0
    config = json.loads((FIXTURES / "gemma-2-2b.json").read_text(encoding="utf-8"))
    del config["attn_logit_softcapping"]
    assert model_from_hf_config(config, id="g", name="G", source="test").attn_logit_softcapping == 50.0
    assert model_from_hf_config({**config, "attn_logit_softcapping": None}, id="g", name="G",
                                source="test").attn_logit_softcapping is None  # fmt: skip
    assert default_catalog().model("gemma-3-12b").attn_logit_softcapping is None
    with pytest.raises(ValueError, match="attn_logit_softcapping"):
        model_from_hf_config({**config, "attn_logit_softcapping": -1}, id="g", name="G", source="test")


def test_phi_3_mini_4k_slides_2047_tokens_and_the_128k_model_slides_none_it_trains_on() -> None:
    """Phi-3-mini-4k-instruct's config.json sets sliding_window 2047 (the saved fixture), on every layer
    (modeling_phi3.py passes it to each attention); the 128k model's 262144 is past any sequence it trains on."""
    saved = json.loads((FIXTURES / "phi-3-mini-4k-instruct.json").read_text())
    four_k, long = default_catalog().model("phi-3-mini"), default_catalog().model("phi-3-mini-128k")
    assert four_k.sliding_window == saved["sliding_window"] == 2047
    assert four_k.sliding_layers == tuple(range(32)) and long.sliding_window == 262144


def test_a_window_masks_sdpa_from_its_length_on_and_cuts_keys_only_past_it() -> None:
    """Two rules with one edge apart: Transformers passes SDPA the window mask once kv_length reaches the window
    (masking_utils.py _ignore_causal_mask_sdpa: is_causal while kv_length < local_attention_size), while the window
    leaves keys out only when it is shorter than the sequence; a model without a window does neither."""
    gemma = default_catalog().model("gemma-3-12b")  # 1024-token window
    assert not gemma.window_masks(1023) and gemma.window_masks(1024) and gemma.window_masks(None)
    assert not gemma.window_cuts(1024) and gemma.window_cuts(1025)
    llama = default_catalog().model("llama-3.1-8b")
    assert not llama.window_masks(None) and not llama.window_masks(131072) and not llama.window_cuts(131072)
