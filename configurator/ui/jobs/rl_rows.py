"""The Jobs form's post-training rows: the objective (SFT, DPO, GRPO, PPO), the KL coefficient, GRPO's
generations per prompt, prompt and completion lengths, where generation runs (vLLM colocated with its share of
each card, or on cards of its own), vLLM's tensor parallelism, PPO's reward model and epochs, and an MoE model's
capacity factor. Each row is shown only where the engine says it applies (engine/checks/rl.py form_fields).
PPO's critic checkpoint is picked from the catalog, or kept as the build names it (a config.json)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox, QWidget

from configurator.catalog.models import ModelSpec
from configurator.engine.checks.rl import form_fields
from configurator.engine.memory import rl
from configurator.engine.model.build import Job, RLSettings
from configurator.ui.jobs.fields import FittingCheck, float_range, int_range, shown
from configurator.ui.jobs.form_kit import FormKit

POLICY_CRITIC = "The policy's architecture"  # no critic_model: the value and reward models are the policy's size
OBJECTIVES = {"sft": "Supervised (SFT)", "dpo": "DPO (preference pairs)", "grpo": "GRPO (RL, groups of generations)",
              "ppo": "PPO (RL, critic + reward model)"}  # fmt: skip
GENERATION = {"vllm-colocate": "vLLM on the training cards", "vllm-server": "vLLM on cards of its own",
              "transformers": "Transformers generate (no vLLM)"}  # fmt: skip


class RLRows:
    def __init__(self, kit: FormKit) -> None:
        self.kit = kit
        self.sequence_row: QWidget | None = None  # the sequence length's row (sequence_row.py), hidden for GRPO / PPO
        self.objective_box = kit.choice_box("objective", Job, "Objective", "objectiveBox",
                                            "Supervised fine-tuning, or preference / RL post-training: the models "
                                            "each method keeps and what it generates")  # fmt: skip
        for i in range(self.objective_box.count()):
            self.objective_box.setItemText(i, OBJECTIVES.get(self.objective_box.itemData(i), ""))
        self.beta_spin = self._double(
            "beta",
            "KL coefficient",
            "betaSpin",
            3,
            "KL coefficient beta (0: no KL term, no reference model)",
        )
        # the trainer's default as its own switch: 0 is a real setting (no KL term), not "auto"
        self.beta_auto = FittingCheck("Trainer's default beta", "Default beta")  # 152 px: wider than a narrow dock
        kit.register(self.beta_auto, "betaAutoCheck", "The trainer's default KL coefficient (TRL: DPO 0.1, GRPO 0, "
                     "PPO 0.05); off: the value set, 0 included")  # fmt: skip
        kit.form.addRow("", self.beta_auto)
        self.beta_auto.toggled.connect(self._beta_auto_toggled)
        self.generations_spin = self._int("generations", "Generations", "generationsSpin",
                                          "GRPO completions per prompt (num_generations)")  # fmt: skip
        # "Prompt", "Completion": "Completion tokens" (113 px) widened the label column past a 1024 px window's
        # dock, so every field was cut at its right edge; the accessible names and tooltips say "tokens"
        self.prompt_spin = self._int("prompt_length", "Prompt", "promptSpin", "Prompt tokens per sequence")
        self.completion_spin = self._int("completion_length", "Completion", "completionSpin",
                                         "Generated tokens per sequence (max_completion_length)")  # fmt: skip
        self.prompt_spin.setAccessibleName("Prompt tokens")
        self.completion_spin.setAccessibleName("Completion tokens")
        self.generation_box = kit.choice_box("generation", RLSettings, "Generation", "generationBox",
                                             "Where completions are generated: vLLM sharing the training cards, "
                                             "vLLM on cards of its own, or the trainer's generate")  # fmt: skip
        for i in range(self.generation_box.count()):
            self.generation_box.setItemText(i, GENERATION.get(self.generation_box.itemData(i), ""))
        self.kit.choice_edits["generation"] = self._generation_edit
        self.share_spin = self._double("vllm_gpu_memory_utilization", "vLLM share", "vllmShareSpin", 2,
                                       "vLLM's share of each training card (gpu_memory_utilization)")  # fmt: skip
        self.server_share_spin = self._double("server_gpu_memory_utilization", "Server share", "serverShareSpin", 2,
                                              "vLLM's share of each of its own cards")  # fmt: skip
        self.cards_edit = QLineEdit()
        self.cards_edit.setPlaceholderText("5, 6")
        kit.add_row("Generation slots", self.cards_edit, "generationCardsEdit",
                    "Slots whose cards run the vLLM server (comma-separated)")  # fmt: skip
        self.cards_edit.editingFinished.connect(self._cards_typed)
        self.vllm_tp_spin = self._int(
            "vllm_tensor_parallel",
            "vLLM TP",
            "vllmTpSpin",
            "vLLM tensor-parallel size: weights and KV cache split this many ways",
        )
        self.reward_check = QCheckBox("Reward model")
        kit.register(self.reward_check, "rewardModelCheck", "PPO scores with a reward model network (off: "
                     "rule-based reward functions)")  # fmt: skip
        kit.form.addRow("", self.reward_check)
        self.reward_check.toggled.connect(self._reward_toggled)
        self.critic_box = QComboBox()
        self.critic_box.addItem(POLICY_CRITIC, None)
        for m in sorted(kit.doc.catalog.models.values(), key=lambda m: (m.total_params, m.name)):
            if not m.is_params_only:
                self.critic_box.addItem(m.name, m.id)
        self.catalog_critics = self.critic_box.count()  # a build's own config.json follows them
        kit.add_row("Critic model", self.critic_box, "criticModelBox",
                    "PPO: the checkpoint the value (critic) and reward models are made from (TRL: "
                    "--reward_model_path); by default the policy's own architecture. A smaller one shrinks both and "
                    "their passes")  # fmt: skip
        self.critic_box.currentIndexChanged.connect(self._critic_chosen)
        self.epochs_spin = self._int("ppo_epochs", "PPO epochs", "ppoEpochsSpin", "Passes over each rollout")
        self.capacity_spin = QDoubleSpinBox()
        self.capacity_spin.setDecimals(2)
        self.capacity_spin.setSingleStep(0.25)
        self.capacity_spin.setRange(*float_range(Job, "moe_capacity_factor", 2))
        kit.add_row(
            "Capacity factor",
            self.capacity_spin,
            "capacitySpin",
            "MoE dispatch buffers padded to capacity factor x tokens x k / experts (1: dropless)",
        )
        self.capacity_spin.valueChanged.connect(self._capacity_changed)
        self.rows: dict[str, QWidget] = {
            "beta": self.beta_spin, "generations": self.generations_spin, "prompt_length": self.prompt_spin,
            "completion_length": self.completion_spin, "generation": self.generation_box,
            "vllm_gpu_memory_utilization": self.share_spin, "server_gpu_memory_utilization": self.server_share_spin,
            "generation_cards": self.cards_edit, "vllm_tensor_parallel": self.vllm_tp_spin,
            "reward_model": self.reward_check, "critic_model": self.critic_box, "ppo_epochs": self.epochs_spin,
            "moe_capacity_factor": self.capacity_spin,
        }  # fmt: skip

    def _int(self, field: str, label: str, name: str, tip: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setRange(*int_range(RLSettings, field))
        self.kit.add_row(label, spin, name, tip)
        spin.valueChanged.connect(lambda v, f=field, s=spin: self._set(s, f, v, shown(v)))
        return spin

    def _double(self, field: str, label: str, name: str, decimals: int, tip: str) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setDecimals(decimals)
        spin.setSingleStep(0.05)
        spin.setRange(*float_range(RLSettings, field, decimals))
        self.kit.add_row(label, spin, name, tip)
        spin.valueChanged.connect(lambda v, f=field, s=spin: self._set(s, f, v, f"{v:g}"))
        return spin

    # ---- refresh -----------------------------------------------------------------------------------------

    def fill(self, job: Job, spec: ModelSpec | None) -> None:
        kit, r = self.kit, job.rl
        kit.set_choice(self.objective_box, job.objective)
        kit.set_value(self.beta_spin, rl.beta(job))  # the value in use, the trainer's default under "auto"
        self.beta_auto.setChecked(r.beta is None)
        self.beta_spin.setEnabled(r.beta is not None)
        for spin, value in ((self.generations_spin, r.generations), (self.prompt_spin, r.prompt_length),
                            (self.completion_spin, r.completion_length), (self.vllm_tp_spin, r.vllm_tensor_parallel),
                            (self.epochs_spin, rl.ppo_epochs(job)), (self.share_spin, r.vllm_gpu_memory_utilization),
                            (self.server_share_spin, r.server_gpu_memory_utilization),
                            (self.capacity_spin, job.moe_capacity_factor)):  # fmt: skip
            kit.set_value(spin, value)
        kit.set_choice(self.generation_box, rl.generation_engine(job))
        self.reward_check.setChecked(r.reward_model)
        self._show_critic(r.critic_model)
        if self.cards_edit not in kit.invalid and not self.cards_edit.hasFocus():
            self.cards_edit.setText(", ".join(map(str, r.generation_cards)))
        applies = form_fields(job, spec)
        for field, widget in self.rows.items():
            kit.form.setRowVisible(widget, field in applies)
        kit.form.setRowVisible(self.beta_auto, "beta" in applies)
        if self.sequence_row is not None:
            kit.form.setRowVisible(self.sequence_row, "sequence_length" in applies)

    # ---- edits -------------------------------------------------------------------------------------------

    def _rl(self, **changes: Any) -> dict[str, Any]:
        job = self.kit.job()
        assert job is not None
        return {"rl": {**job.rl.model_dump(), **changes}}

    def _set(self, widget: QWidget, field: str, value: Any, text: str) -> None:
        if self.kit.job() is None:
            return
        self.kit.apply(widget, field, text, self._rl(**{field: value}), merge=True)

    def _generation_edit(self, build: Any, index: int, generation: str) -> Any:
        return self.kit.titled(build, index, **self._rl(generation=generation))

    def _cards_typed(self) -> None:
        job = self.kit.job()
        if job is None:
            return
        words = [w.strip() for w in self.cards_edit.text().split(",") if w.strip()]
        if not all(w.isdigit() for w in words):
            self.kit.mark_invalid(self.cards_edit, "slot numbers, comma-separated")
            return
        slots = sorted({int(w) for w in words})
        if slots == job.rl.generation_cards:
            self.kit.clear_invalid(self.cards_edit)
            return
        self.kit.apply(self.cards_edit, "generation_cards", ", ".join(map(str, slots)) or "none",
                       self._rl(generation_cards=slots))  # fmt: skip

    def _beta_auto_toggled(self, auto: bool) -> None:
        job = self.kit.job()
        if job is None:
            return
        value = None if auto else self.beta_spin.value()
        self.kit.apply(self.beta_auto, "beta", "auto" if value is None else f"{value:g}", self._rl(beta=value))

    def _reward_toggled(self, checked: bool) -> None:
        job = self.kit.job()
        if job is not None:
            self.kit.apply(self.reward_check, "reward_model", shown(checked), self._rl(reward_model=checked),
                           text=f"{'Use' if checked else 'Drop'} the reward model of {job.name}")  # fmt: skip

    def _show_critic(self, ref: str | None) -> None:
        """Select the job's critic checkpoint; one the catalog lacks (a config.json) is listed after its models."""
        box = self.critic_box
        while box.count() > self.catalog_critics:
            box.removeItem(box.count() - 1)
        index = box.findData(ref)
        if index < 0 and ref is not None:
            box.addItem(ref, ref)
            index = box.count() - 1
        with QSignalBlocker(box):
            box.setCurrentIndex(max(index, 0))

    def _critic_chosen(self, index: int) -> None:
        job = self.kit.job()
        ref = self.critic_box.itemData(index)
        if job is None or ref == job.rl.critic_model:
            return
        self.kit.apply(self.critic_box, "critic_model", self.critic_box.itemText(index), self._rl(critic_model=ref),
                       text=f"Critic model of {job.name}: {self.critic_box.itemText(index)}")  # fmt: skip

    def _capacity_changed(self, value: float) -> None:
        if self.kit.job() is not None:
            self.kit.apply(self.capacity_spin, "moe_capacity_factor", f"{value:g}", {"moe_capacity_factor": value},
                           merge=True)  # fmt: skip
