"""Artifact listing and checksummed, resumable downloads against the emulated OSS."""

import os
from pathlib import Path

import pytest
from pydantic import SecretStr

from server.core.errors import Forbidden
from server.training.cloud import DownloadProgress, PaiCredentials, PaiDlcClient, PaiDlcSettings
from tests.fakes.paidlc import Emulator

from .conftest import BUCKET

DATA = os.urandom(200_000)


class Interrupted(Exception):
    pass


def stop_after_first_chunk(progress: DownloadProgress) -> None:
    raise Interrupted(progress.path)


def test_listing_follows_continuation_tokens(dlc: PaiDlcClient, emulator: Emulator) -> None:
    prefix = "list-test/"
    for i in range(7):
        emulator.store.put(BUCKET, f"{prefix}f{i}.txt", b"x")
    emulator.store.put(BUCKET, "list-test-not/other.txt", b"x")
    paths = [a.path for a in dlc.artifacts.list_artifacts(prefix, page_size=3)]
    assert paths == [f"f{i}.txt" for i in range(7)]
    pages = [r for r in emulator.requests if "continuation-token=" in r.query]
    assert len(pages) == 2


def test_interrupted_download_resumes_with_a_range_request(
    dlc: PaiDlcClient, emulator: Emulator, tmp_path: Path
) -> None:
    emulator.store.put(BUCKET, "resume/model.bin", DATA)
    with pytest.raises(Interrupted):
        dlc.download_artifacts("resume/", tmp_path, stop_after_first_chunk)
    part = tmp_path / "model.bin.part"
    partial = part.stat().st_size
    assert 0 < partial < len(DATA) and not (tmp_path / "model.bin").exists()

    files = dlc.download_artifacts("resume/", tmp_path)
    assert files[0].resumed_from == partial
    assert (tmp_path / "model.bin").read_bytes() == DATA and not part.exists()
    assert any(
        r.range == f"bytes={partial}-" and r.path.endswith("/resume/model.bin") for r in emulator.requests
    )

    again = dlc.download_artifacts("resume/", tmp_path)
    assert again[0].skipped


def test_corrupt_partial_file_is_fetched_again(dlc: PaiDlcClient, emulator: Emulator, tmp_path: Path) -> None:
    emulator.store.put(BUCKET, "corrupt/model.bin", DATA)
    (tmp_path / "model.bin.part").write_bytes(b"\0" * 1000)  # wrong bytes, right length class
    files = dlc.download_artifacts("corrupt/", tmp_path)
    assert (tmp_path / "model.bin").read_bytes() == DATA
    assert files[0].resumed_from == 0


def test_object_replaced_between_attempts_is_fetched_whole(
    dlc: PaiDlcClient, emulator: Emulator, tmp_path: Path
) -> None:
    emulator.store.put(BUCKET, "replaced/model.bin", DATA)
    with pytest.raises(Interrupted):
        dlc.download_artifacts("replaced/", tmp_path, stop_after_first_chunk)
    newer = os.urandom(150_000)
    emulator.store.put(BUCKET, "replaced/model.bin", newer)
    files = dlc.download_artifacts("replaced/", tmp_path)
    assert (tmp_path / "model.bin").read_bytes() == newer
    assert files[0].resumed_from == 0


def test_artifact_paths_cannot_escape_the_destination(
    dlc: PaiDlcClient, emulator: Emulator, tmp_path: Path
) -> None:
    emulator.store.put(BUCKET, "escape/a/../../../evil.txt", b"x")
    from server.core.errors import Invalid

    with pytest.raises(Invalid):
        dlc.download_artifacts("escape/", tmp_path / "dest")
    assert not (tmp_path / "evil.txt").exists()


def test_wrong_oss_secret_is_a_clear_error_without_the_secret(
    dlc_settings: PaiDlcSettings, emulator: Emulator
) -> None:
    wrong = PaiCredentials(
        access_key_id=emulator.access_key_id, access_key_secret=SecretStr("not-the-secret-42")
    )
    with pytest.raises(Forbidden) as caught:
        PaiDlcClient(dlc_settings, wrong).list_artifacts("anything/")
    err = caught.value
    assert err.code == "cloud_auth" and err.extra["cloud_code"] == "SignatureDoesNotMatch"
    assert err.extra["request_id"] and err.extra["request_id"] in err.detail
    assert "not-the-secret-42" not in err.detail
