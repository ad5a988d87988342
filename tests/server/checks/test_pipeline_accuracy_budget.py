"""A pipeline budget's accuracy limit: the real PP-OCRv4 pipeline (tests/fakes/ppocr.py) evaluated
by the checks on a labelled set of rendered text, through ``run_checks`` and ``mnnwb check``; a
table that names half an accuracy limit, or a metric that does not fit, is refused by name."""

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from server.checks.service import run_checks
from server.core.errors import Invalid
from tests.device_bridge.test_ppocr_pipeline import LINES, RENDERED, TURNED, distance

READS = " ".join(LINES)
WRONG = "MNN Workbench 2025 Pipelines on device"
BUDGET = """
[[pipeline_budget]]
pipeline = "ocr/pipeline.toml"
min_accuracy = {minimum}
metric = "{metric}"
dataset = "labelled"
"""


@pytest.fixture
def folder(tmp_path: Path, ppocr_pipeline: Path) -> Path:
    root = tmp_path / "proj"
    (root / "ocr").mkdir(parents=True)
    for path in ppocr_pipeline.parent.iterdir():
        if path.is_file() and path.suffix in (".mnn", ".toml", ".txt"):
            shutil.copy(path, root / "ocr" / path.name)
    (root / "labelled").mkdir()
    for name in (RENDERED, TURNED):
        shutil.copy(ppocr_pipeline.parent / name, root / "labelled" / name)
    return root


def _labels(root: Path, upright: str) -> None:
    (root / "labelled" / "labels.tsv").write_text(
        f"file\ttext\n{RENDERED}\t{upright}\n{TURNED}\t{' '.join(LINES[::-1])}\n"
    )


def test_an_accuracy_limit_that_holds_passes(folder: Path) -> None:
    _labels(folder, READS)
    (folder / "mnnwb.toml").write_text(BUDGET.format(minimum=0.99, metric="char_accuracy"))
    report = run_checks(folder)
    [result] = report.results
    assert report.passed is True, report
    assert (result.model, result.stage, result.metric, result.value) == (
        "ocr/pipeline.toml", None, "char_accuracy", 1.0
    )


def test_a_wrong_reading_fails_the_limit_in_mnnwb_check(folder: Path, tmp_path: Path) -> None:
    _labels(folder, WRONG)
    (folder / "mnnwb.toml").write_text(BUDGET.format(minimum=0.99, metric="char_accuracy"))
    expected = 1 - distance(READS, WRONG) / (len(WRONG) + len(READS))
    assert expected < 0.99
    junit = tmp_path / "checks.xml"
    done = subprocess.run([sys.executable, "-m", "server.cli", "check", str(folder), "--junit", str(junit)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "char_accuracy" in done.stdout and "1 of 2 samples not exact" in done.stdout
    assert "0 passed, 1 failed" in done.stdout
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")  # noqa: S314 - written here
    assert failure.get("type") == "char_accuracy"
    assert failure.get("message") == f"char_accuracy is {expected:.6g}, the budget allows at least 0.99"


def test_a_metric_that_does_not_fit_fails_with_why(folder: Path) -> None:
    _labels(folder, READS)
    (folder / "mnnwb.toml").write_text(BUDGET.format(minimum=0.5, metric="accuracy"))
    [result] = run_checks(folder).results
    assert (result.passed, result.value) == (False, None)
    assert "'accuracy' does not fit the last stage 'read', which gives text" in (result.detail or "")


@pytest.mark.parametrize(
    ("table", "where"),
    [
        ('pipeline = "ocr/pipeline.toml"\nmin_accuracy = 0.9\ndataset = "labelled"\n',
         "min_accuracy, dataset and metric go together"),
        ('pipeline = "ocr/pipeline.toml"\nmin_accuracy = 0.9\ndataset = "labelled"\nmetric = "bleu"\n',
         "pipeline budget 1: metric"),
        ('pipeline = "ocr/pipeline.toml"\nmin_accuracy = 1.5\ndataset = "labelled"\nmetric = "accuracy"\n',
         "pipeline budget 1: min_accuracy"),
        ('pipeline = "ocr/pipeline.toml"\nmin_accuracy = 0.9\ndataset = "labelled"\nmetric = "accuracy"\n'
         'device = "phone"\n', "min_accuracy is measured here"),
        ('pipeline = "ocr/pipeline.toml"\nmax_latency_ms = 100\n', "a latency limit needs inputs"),
    ],
)
def test_a_malformed_accuracy_limit_is_refused_by_name(folder: Path, table: str, where: str) -> None:
    (folder / "mnnwb.toml").write_text(f"[[pipeline_budget]]\n{table}")
    with pytest.raises(Invalid) as raised:
        run_checks(folder)
    assert where in raised.value.detail, raised.value.detail
