"""The ``mnnwb`` command line: local-mode refusals, the URL, the device agent entry."""

import subprocess
import sys
from pathlib import Path

MNNWB = str(Path(sys.executable).with_name("mnnwb"))


def _run(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MNNWB, *args], capture_output=True, text=True, timeout=60, check=False,
                          env={"PATH": "/usr/bin:/bin", "MNNWB_DATA_DIR": str(data_dir)})


def test_url_prints_the_token_from_the_private_file(tmp_path):
    result = _run("url", data_dir=tmp_path)
    token = (tmp_path / "token").read_text().strip()
    assert result.returncode == 0
    assert result.stdout.strip() == f"http://127.0.0.1:8765/?token={token}"


def test_serving_beyond_loopback_is_refused_in_local_mode(tmp_path):
    result = _run("serve", "--host", "0.0.0.0", "--port", "0", data_dir=tmp_path)
    assert result.returncode == 2
    assert "team mode" in result.stderr


def test_device_runs_the_agent_with_its_own_options(tmp_path):
    result = _run("device", "--help", data_dir=tmp_path)
    assert result.returncode == 0
    assert "--server" in result.stdout and "--token-file" in result.stdout
