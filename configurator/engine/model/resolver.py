"""One place that turns a job's ``model`` into a ModelSpec: a catalog id, a Hugging Face config.json, or a
parameter count. A relative config.json path is relative to the build file's folder, wherever it is read
(evaluate, every sweep, the compare dialog, the demo): the window's document owns one resolver for its file.
"""

from __future__ import annotations

import os
from pathlib import Path

from configurator.catalog.errors import FileError, Problem, UnknownIdError, plain_message
from configurator.catalog.fileio import expand_path
from configurator.catalog.hf_config import load_hf_config, names_file
from configurator.catalog.loader import Catalog
from configurator.catalog.models import ModelSpec
from configurator.engine.model.build import ParamsOnlyModel

# What resolving can raise for a reference that names nothing usable (and nothing else: a bug stays loud).
RESOLVE_ERRORS: tuple[type[Exception], ...] = (UnknownIdError, FileError, OSError, ValueError)

# Imported configs by (absolute path, modification time): an edited config.json is read again.
_imported: dict[tuple[str, float], ModelSpec] = {}


class ModelResolver:
    """Resolves model references against ``catalog``, with paths relative to ``base_dir`` (the build's folder;
    None for a build that has no file yet, whose paths are relative to the working directory)."""

    def __init__(self, catalog: Catalog, base_dir: str | Path | None = None) -> None:
        self.catalog = catalog
        self.base_dir = Path(base_dir) if base_dir else None

    def path_of(self, ref: str) -> Path:
        """Where a config.json reference points (relative references from the build's folder)."""
        path = expand_path(ref)  # FileError, not RuntimeError, for ~nosuchuser
        if not path.is_absolute() and self.base_dir is not None:
            path = self.base_dir / path
        return path

    def resolve(self, ref: str | ParamsOnlyModel) -> ModelSpec:
        """The model ``ref`` names; raises one of RESOLVE_ERRORS (with the reason) when it names nothing."""
        if isinstance(ref, ParamsOnlyModel):
            label = ref.name or f"{ref.parameters / 1e9:g}B (parameter count only)"
            try:
                return ModelSpec(id=f"params-{ref.parameters:.0f}", name=label, source="build file: parameter count",
                                 architecture="params-only", parameters=int(ref.parameters),
                                 adapter_fraction=ref.adapter_fraction)  # fmt: skip
            except ValueError as exc:  # pydantic's ValidationError: in plain words, naming the field
                raise ValueError(f"model {plain_message(exc)}") from None
        if ref in self.catalog.models:
            return self.catalog.models[ref]
        if names_file(ref):
            path = self.path_of(ref)
            try:
                key = (os.path.realpath(path), path.stat().st_mtime if path.exists() else 0.0)
            except (OSError, ValueError, RuntimeError) as exc:  # a symlink loop, a name too long
                reason = getattr(exc, "strerror", None) or exc
                raise FileError(str(path), [Problem("", f"cannot read: {reason}")]) from None
            if key not in _imported:
                _imported[key] = load_hf_config(path)
            return _imported[key]
        raise UnknownIdError("model", ref, list(self.catalog.models))

    def find(self, ref: str | ParamsOnlyModel) -> ModelSpec | None:
        """The model, or None when the reference names nothing (evaluate reports why as JOB_MODEL_UNKNOWN)."""
        try:
            return self.resolve(ref)
        except RESOLVE_ERRORS:
            return None
