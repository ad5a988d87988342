"""The budgets form's side of the server: the tables as written, a save that keeps everything but
the budgets as it was, errors named by budget and field, and a template for the project's models."""

import tomllib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.checks.budget_toml import write_budgets
from server.core.errors import Invalid
from tests.server.checks.conftest import Variants

WRITTEN = """\
# Budgets for the release; the team reads this file.
[project]
owner = "vision"   # who answers for a regression

[[budget]]
model = "model.mnn"   # the shipped one
max_size_mb = 4
input_shapes = { input = [1, 3, 32, 32] }

[[budget]]
model = "slow.mnn"
[budget.input_shapes]
input = [1, 3, 32, 32]

[notes]
text = "kept"
"""


def test_a_changed_limit_rewrites_its_line_and_nothing_else() -> None:
    budgets = tomllib.loads(WRITTEN)["budget"]
    budgets[0]["max_size_mb"] = 2.5
    budgets[1]["threads"] = 2
    written = write_budgets(WRITTEN, budgets)
    assert written == WRITTEN.replace("max_size_mb = 4", "max_size_mb = 2.5").replace(
        'model = "slow.mnn"\n', 'model = "slow.mnn"\nthreads = 2\n'
    )


def test_a_changed_sub_table_writes_its_budget_anew() -> None:
    text = '[[budget]]\nmodel = "a.mnn"\nloops = [\n  1,\n]\n'
    assert write_budgets(text, [{"model": "a.mnn", "loops": 5}]) == '[[budget]]\nmodel = "a.mnn"\nloops = 5\n'


def test_budgets_added_and_removed_leave_the_other_tables() -> None:
    budgets = tomllib.loads(WRITTEN)["budget"][:1] + [{"model": "new.mnn", "max_latency_ms": 3.0}]
    written = write_budgets(WRITTEN, budgets)
    data = tomllib.loads(written)
    assert data["budget"] == budgets
    assert data["project"] == {"owner": "vision"} and data["notes"] == {"text": "kept"}
    assert "# who answers for a regression" in written and "# the shipped one" in written
    assert "slow.mnn" not in written
    assert write_budgets("", [{"model": "m.mnn"}]) == '[[budget]]\nmodel = "m.mnn"\n'


def test_removing_the_first_budget_keeps_the_second_as_written() -> None:
    text = '[[budget]]\nmodel = "a.mnn"  # first\n\n[[budget]]\nmodel = "b.mnn"  # second\nmax_size_mb = 1\n'
    budgets = tomllib.loads(text)["budget"]
    assert write_budgets(text, budgets[1:]) == '[[budget]]\nmodel = "b.mnn"  # second\nmax_size_mb = 1\n'
    picked_anew = write_budgets(text, [{"model": "c.mnn"}, budgets[1]])
    assert picked_anew == text.replace('model = "a.mnn"  # first', 'model = "c.mnn"')


def test_a_file_the_lines_cannot_express_is_left_to_the_text_editor() -> None:
    # A table header inside a multi-line string is no table: the lines are not told apart.
    text = 'notes = """\n[[budget]]\n"""\n'
    with pytest.raises(Invalid) as caught:
        write_budgets(text, [{"model": "a.mnn"}])
    assert caught.value.code == "budgets_not_editable"


@pytest.fixture
def project(client: TestClient, variants: Variants) -> tuple[Path, str]:
    created = client.post("/api/projects", json={"name": "budget-form", "template": "empty"}).json()
    root = Path(created["path"])
    variants.copy_to(root)
    return root, f"/api/projects/{created['id']}"


def test_template_save_and_errors_through_the_api(client: TestClient, project: tuple[Path, str]) -> None:
    root, base = project
    template = client.get(f"{base}/budgets/template").json()
    by_model = {b["model"]: b for b in template}
    assert set(by_model) == {"model.mnn", "model.fp16.mnn", "model.wq8.mnn", "model.int8.mnn", "slow.mnn"}
    size_mb = (root / "model.mnn").stat().st_size / 2**20
    assert size_mb < by_model["model.mnn"]["max_size_mb"] <= size_mb * 1.1 + 0.1
    assert (by_model["model.mnn"]["reference"], by_model["model.mnn"]["min_cosine"]) == ("model.onnx", 0.999)
    assert by_model["slow.mnn"]["reference"] is None

    (root / "mnnwb.toml").write_text(WRITTEN)
    tables = client.get(f"{base}/budgets/tables").json()["budgets"]
    assert tables[1]["input_shapes"] == {"input": [1, 3, 32, 32]}
    tables[0]["max_size_mb"] = 0.5
    saved = client.put(f"{base}/budgets", json={"budgets": tables})
    assert saved.status_code == 200, saved.text
    assert saved.json()[0]["max_size_mb"] == 0.5
    written = (root / "mnnwb.toml").read_text()
    assert tomllib.loads(written)["notes"] == {"text": "kept"} and "# the shipped one" in written
    assert client.get(f"{base}/budgets").json()[0]["max_size_mb"] == 0.5

    wrong = [
        {"model": "model.mnn", "max_size_mb": -1, "colour": "blue"},
        {"model": "a.mnn", "min_cosine": 0.9},
    ]
    refused = client.put(f"{base}/budgets", json={"budgets": wrong})
    assert refused.status_code == 422
    body = refused.json()
    assert body["code"] == "bad_budgets"
    assert {(e["budget"], e["field"]) for e in body["errors"]} == {(1, "max_size_mb"), (1, "colour"), (2, "")}
    assert (root / "mnnwb.toml").read_text() == written
