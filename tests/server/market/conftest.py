"""The built-in algorithms are built once per test session and copied into each data dir."""

import shutil
from pathlib import Path

import pytest

from server.core.config import Settings
from server.market import builtins


@pytest.fixture(scope="session")
def builtin_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real build (training, ONNX export, conversion, measurement) shared by the tests."""
    data_dir = tmp_path_factory.mktemp("market-build") / "data"
    return builtins.ensure_built(Settings(data_dir=data_dir))


def seed_builtins(settings: Settings, built: Path) -> Path:
    """Put the session's build where ``settings`` looks for it; the market then builds nothing."""
    target = builtins.builtin_root(settings) / built.name
    shutil.copytree(built, target)
    return target


@pytest.fixture
def builtins_ready(settings: Settings, builtin_build: Path) -> Path:
    return seed_builtins(settings, builtin_build)
