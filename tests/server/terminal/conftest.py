from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def own_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The shells read the start-up files of an empty home, not those of whoever runs the tests."""
    monkeypatch.setenv("HOME", str(tmp_path))
