"""Calibration images MNN cannot decode are named and skipped, never counted as samples; an int8
model slower than the float one is a warning with both times. Real photographs (scikit-image's
samples) and real quantizations."""

import shutil
from pathlib import Path

import pytest

from server.modeltools.quantize import speed_warnings
from tests.fakes import photos
from tests.server.modeltools.conftest import Models, run_tool


def _ok(outcome) -> dict:
    assert outcome.status == "succeeded", outcome.error
    return outcome.result


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return photos.calibration_folder(tmp_path_factory.mktemp("photos") / "calib", size=32)


def _broken(clean: Path, folder: Path) -> Path:
    """The clean photos plus a truncated JPEG, a text file named .png and an empty .bmp."""
    shutil.copytree(clean, folder)
    photos.truncated(photos.photo("rocket.jpg"), folder / "cut.jpg")
    (folder / "notes.png").write_text("this is not a picture\n")
    (folder / "empty.bmp").write_bytes(b"")
    return folder


def _quantize_and_compare(zoo: Models, folder: Path, run: Path) -> tuple[dict, dict]:
    int8 = run / "conv.int8.mnn"
    # EMA calibration is the one a bad sample hurts on this net: counted as samples (before the
    # check), the truncated JPEG and the text file took the compare cosine from 0.976 to 0.899
    # (with KL it stayed at 0.9998).
    args = {"model": str(zoo.conv_mnn), "output": str(int8), "calibration": str(folder),
            "feature_method": "EMA"}
    quantized = _ok(run_tool("quantize", args, run / "q"))
    compared = _ok(run_tool("compare", {"model": str(int8), "reference": str(zoo.conv),
                                        "per_layer": False}, run / "c"))
    return quantized, compared


def test_undecodable_images_are_named_skipped_and_do_not_hurt_the_model(
    zoo: Models, clean: Path, tmp_path: Path
) -> None:
    before, clean_compare = _quantize_and_compare(zoo, clean, tmp_path / "clean")
    after, broken_compare = _quantize_and_compare(zoo, _broken(clean, tmp_path / "calib"),
                                                  tmp_path / "broken")
    assert before["samples"] == after["samples"] == 6 and before["skipped"] == []
    reasons = {s["file"]: s["reason"] for s in after["skipped"]}
    assert set(reasons) == {"cut.jpg", "notes.png", "empty.bmp"}
    assert reasons["cut.jpg"].startswith("truncated JPEG: it ends before its end-of-image marker")
    assert reasons["notes.png"] == "not an image: the file is text ('this is not a picture'…)"
    assert reasons["empty.bmp"] == "empty file (0 bytes)"
    assert clean_compare["cosine"] > 0.95
    assert broken_compare["cosine"] == pytest.approx(clean_compare["cosine"], abs=1e-6)
    log = (tmp_path / "broken" / "q" / "worker.log").read_text()
    assert "calibration: skipped notes.png: not an image" in log
    assert "Can't decode" not in log  # MNN's own line went to native.log


def test_a_folder_without_a_decodable_image_fails_naming_them(zoo: Models, tmp_path: Path) -> None:
    folder = tmp_path / "calib"
    folder.mkdir()
    photos.truncated(photos.photo("astronaut.png"), folder / "half.png")
    (folder / "readme.jpg").write_text("photos go here\n")
    args = {"model": str(zoo.conv_mnn), "output": str(tmp_path / "o.mnn"), "calibration": str(folder)}
    outcome = run_tool("quantize", args, tmp_path / "q")
    assert outcome.status == "failed" and outcome.code == "no_usable_calibration"
    assert outcome.error is not None
    assert outcome.error.startswith("no calibration image in calib can be decoded (half.png: "
                                    "truncated PNG: it ends before its IEND chunk")
    assert "readme.jpg: not an image: the file is text" in outcome.error
    assert not (tmp_path / "o.mnn").exists()


def test_max_samples_counts_decodable_images_only(zoo: Models, clean: Path, tmp_path: Path) -> None:
    folder = tmp_path / "calib"
    shutil.copytree(clean, folder)
    photos.truncated(photos.photo("coffee.png"), folder / "aaa.png", keep=0.9)
    args = {"model": str(zoo.conv_mnn), "output": str(tmp_path / "o.mnn"), "calibration": str(folder),
            "max_samples": 3}
    result = _ok(run_tool("quantize", args, tmp_path / "q"))
    assert result["samples"] == 3
    assert [s["file"] for s in result["skipped"]] == ["aaa.png"]


def test_the_int8_model_is_timed_against_the_float_one(zoo: Models, clean: Path, tmp_path: Path) -> None:
    args = {"model": str(zoo.conv_mnn), "output": str(tmp_path / "o.mnn"), "calibration": str(clean),
            "threads": 2}
    result = _ok(run_tool("quantize", args, tmp_path / "q"))
    speed = result["speed"]
    assert speed["backend"] == "CPU" and speed["threads"] == 2 and speed["runs"] in (3, 5)
    assert speed["float_ms"] > 0 and speed["int8_ms"] > 0
    slower = [w for w in result["warnings"] if w.startswith("the int8 model is slower")]
    assert slower == speed_warnings(speed)


def test_the_slower_warning_gives_both_figures() -> None:
    speed = {"backend": "CPU", "threads": 1, "precision": "normal", "power": "normal", "runs": 5,
             "float_ms": 1.5, "int8_ms": 2.25}
    [warning] = speed_warnings(speed)
    assert warning.startswith("the int8 model is slower than the float model on CPU, 1 thread: "
                              "2.25 ms against 1.5 ms (median of 5 runs each)")
    assert speed_warnings({**speed, "int8_ms": 1.6}) == []  # within what 5 runs vary by
    assert "on OpenCL:" in speed_warnings({**speed, "backend": "OpenCL"})[0]
