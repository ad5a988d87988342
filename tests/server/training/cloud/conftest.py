"""Fixtures: the PAI-DLC/OSS emulator, settings pointing at it, and a pushed Git remote."""

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import SecretStr

from server.training.cloud import PaiCredentials, PaiDlcClient, PaiDlcSettings
from tests.fakes.paidlc import Emulator

BUCKET = "mnnwb-artifacts"
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    # The OpenAPI SDK ignores NO_PROXY, so a proxy in the environment would swallow
    # requests meant for the emulator on 127.0.0.1.
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    with Emulator(buckets=(BUCKET,), step_delay=0.02) as emu:
        yield emu


@pytest.fixture
def dlc_settings(emulator: Emulator) -> PaiDlcSettings:
    return PaiDlcSettings(
        region="cn-hangzhou",
        endpoint=emulator.endpoint,
        workspace_endpoint=emulator.endpoint,
        protocol="http",
        workspace_id="ws-test",
        image="registry.example/pytorch:cpu",
        ecs_spec="ecs.c6.large",
        oss_bucket=BUCKET,
        oss_endpoint=emulator.oss_endpoint,
        oss_path_style=True,
        timeout_seconds=10,
    )


@pytest.fixture
def credentials(emulator: Emulator) -> PaiCredentials:
    return PaiCredentials(
        access_key_id=emulator.access_key_id,
        access_key_secret=SecretStr(emulator.access_key_secret),
    )


@pytest.fixture
def dlc(dlc_settings: PaiDlcSettings, credentials: PaiCredentials) -> PaiDlcClient:
    return PaiDlcClient(dlc_settings, credentials, chunk_size=64 * 1024)


@dataclass
class Remote:
    url: str
    commit: str
    branch: str = "main"


def git(*args: str, cwd: Path) -> str:
    env_args = [
        "-c",
        "user.name=Test",
        "-c",
        "user.email=test@example.com",
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "init.defaultBranch=main",
    ]
    return subprocess.run(
        ["git", *env_args, *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def push_project(tmp_path: Path, files: dict[str, str]) -> Remote:
    """Commit ``files`` in a fresh work tree and push them to a bare repository."""
    bare, work = tmp_path / "remote.git", tmp_path / "work"
    git("init", "--quiet", "--bare", str(bare), cwd=tmp_path)
    git("init", "--quiet", "-b", "main", str(work), cwd=tmp_path)
    for name, text in files.items():
        (work / name).write_text(text)
    git("add", ".", cwd=work)
    git("commit", "--quiet", "-m", "training code", cwd=work)
    git("push", "--quiet", str(bare), "main", cwd=work)
    return Remote(url=bare.as_uri(), commit=git("rev-parse", "HEAD", cwd=work))
