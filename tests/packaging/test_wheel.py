"""The built wheel carries its catalogs, resources and default build, and finds them when installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.build_cache import inputs_key, keep, kept

ROOT = Path(__file__).resolve().parents[2]


# What the wheel is built from (pyproject.toml's hatch sections: the package, the force-included folders, the
# metadata and its readme).
WHEEL_INPUTS = ("configurator", "specs", "resources", "pyproject.toml", "README.md")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel (pip wheel, no build isolation: no network), built once for the module's tests and
    kept in build/test-wheel/<hash of its inputs> (tests/build_cache.py) for the next run on the same tree."""
    key = inputs_key(WHEEL_INPUTS)
    wheels = kept("test-wheel", key)
    if wheels is None:
        wheels = tmp_path_factory.mktemp("wheels") / "wheels"
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                        str(wheels), str(ROOT)], check=True, timeout=300)  # fmt: skip
        wheels = keep("test-wheel", key, wheels, "pip wheel")
    (built,) = wheels.glob("*.whl")
    return built


@pytest.mark.slow
def test_installed_wheel_sizes_a_build(tmp_path: Path, wheel: Path) -> None:
    """pip wheel, install it (non-editable) into a separate folder, run `configurator size` from elsewhere."""
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, timeout=300)  # fmt: skip
    # The wheel's copy comes first on sys.path, ahead of the editable checkout; dependencies come from this venv.
    env = {**os.environ, "PYTHONPATH": str(target)}
    build = ROOT / "resources" / "builds" / "seed-mig-four-tenants.yaml"
    code = (
        "import configurator, sys; print(configurator.__file__); "
        "sys.exit(__import__('configurator.cli').cli.main(sys.argv[1:]))"
    )
    run = subprocess.run([sys.executable, "-c", code, "size", str(build)], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith(str(target))
    assert "1g.24gb" in run.stdout
    run = subprocess.run([sys.executable, "-c", code, "catalog", "cards"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "h200-nvl" in run.stdout
    assert (target / "configurator" / "specs" / "cards.yaml").is_file()
    assert (target / "configurator" / "specs" / "runs" / "litgpt.yaml").is_file()  # the measured runs (sub-folder)
    assert (target / "configurator" / "resources" / "builds" / "default.yaml").is_file()


@pytest.mark.slow
def test_wheel_in_a_fresh_virtual_environment(tmp_path: Path, wheel: Path) -> None:
    """A new venv with only the wheel and the engine's two dependencies runs `configurator size` and
    `configurator catalog`: the CLI's sizing path needs neither Qt nor the source tree."""
    import venv

    env_dir = tmp_path / "venv"
    # Without pip of its own (ensurepip is a third of this test's time): this venv's pip installs into it.
    venv.EnvBuilder(with_pip=False, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
    # pydantic and PyYAML come from the package index (or pip's cache); --no-deps keeps Qt out on purpose
    subprocess.run([*pip, "--no-deps", str(wheel)], check=True, timeout=300)
    subprocess.run([*pip, "pydantic>=2.6,<3", "PyYAML>=6.0"], check=True, timeout=600)
    script = env_dir / "bin" / "configurator"
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    build = ROOT / "resources" / "builds" / "default.yaml"
    run = subprocess.run([str(script), "size", str(build)], cwd=tmp_path, env=clean, capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "Job:" in run.stdout and "70B QLoRA" in run.stdout
    run = subprocess.run([str(script), "catalog", "models"], cwd=tmp_path, env=clean, capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    assert "llama-3.3-70b" in run.stdout
    where = subprocess.run([str(python), "-c", "import configurator, sys; print(configurator.__file__)"],
                           cwd=tmp_path, env=clean, capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert str(env_dir) in where
