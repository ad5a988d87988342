"""The budgets form: started from the template, a threshold changed and saved, the checks use it;
a hand-written mnnwb.toml keeps what the form does not know; errors show at their field."""

import shutil
import tomllib
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.fakes.git_remotes import git
from tests.plugin.resources import ConvNetModels
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser

WRITTEN = """\
# Release budgets: the team reads this file.
[notes]
owner = "vision"   # who answers for a regression
"""


def _project_with_a_model(live_server, models: ConvNetModels) -> tuple[dict, Path]:
    project = create_project(live_server, "budgets-form")
    folder = Path(project["path"])
    shutil.copyfile(models.onnx, folder / "model.onnx")
    shutil.copyfile(models.mnn, folder / "model.mnn")
    (folder / "mnnwb.toml").write_text(WRITTEN)
    git("init", "-q", "-b", "main", cwd=folder)
    return project, folder


def _open_form(page: Page):
    page.get_by_test_id("action-git").click()
    page.get_by_test_id("scm-edit-budgets").click()
    form = page.get_by_test_id("budgets-editor")
    expect(form).to_be_visible()
    return form


def test_template_threshold_save_and_the_check_uses_it(
    context: BrowserContext, live_server, conv_net_models: ConvNetModels
) -> None:
    project, folder = _project_with_a_model(live_server, conv_net_models)
    page = open_project(context, live_server, project)
    form = _open_form(page)
    expect(form.get_by_test_id("budget-row")).to_have_count(0)

    form.get_by_test_id("budgets-template").click()
    card = form.locator("[data-testid=budget-row][data-model='model.mnn']")
    expect(card.get_by_test_id("budget-reference")).to_have_value("model.onnx")
    expect(card.get_by_test_id("budget-min_cosine")).to_have_value("0.999")
    template_size = float(card.get_by_test_id("budget-max_size_mb").input_value())
    assert template_size > (folder / "model.mnn").stat().st_size / 2**20

    card.get_by_test_id("budget-max_size_mb").fill("0.001")
    form.get_by_test_id("budgets-save").click()
    expect(form.get_by_test_id("budgets-message")).to_have_text("Saved to mnnwb.toml.")
    written = (folder / "mnnwb.toml").read_text()
    assert written.startswith(WRITTEN)  # the hand-written part stays as it was, comments too
    data = tomllib.loads(written)
    assert data["notes"] == {"owner": "vision"}
    assert data["budget"] == [
        {"model": "model.mnn", "max_size_mb": 0.001, "reference": "model.onnx", "min_cosine": 0.999}
    ]

    page.get_by_test_id("scm-run-checks").click()
    size = page.locator("[data-testid=check-result][data-metric=size_mb]")
    expect(size).to_have_attribute("data-passed", "false", timeout=60_000)
    expect(size).to_contain_text("0.001")
    cosine = page.locator("[data-testid=check-result][data-metric=cosine]")
    expect(cosine).to_have_attribute("data-passed", "true")


def test_a_budget_key_the_form_does_not_know_survives_a_save_and_errors_name_their_field(
    context: BrowserContext, live_server, conv_net_models: ConvNetModels, console_errors
) -> None:
    console_errors.allow(r"422 .*/budgets")  # the save refused for a negative latency
    project, folder = _project_with_a_model(live_server, conv_net_models)
    (folder / "mnnwb.toml").write_text(
        WRITTEN + '\n[[budget]]\nmodel = "model.mnn"   # the shipped one\nmax_size_mb = 4\n'
        "input_shapes = { input = [1, 3, 32, 32] }\n"
    )
    page = open_project(context, live_server, project)
    form = _open_form(page)
    card = form.locator("[data-testid=budget-row][data-model='model.mnn']")
    expect(card.get_by_test_id("budget-unknown")).to_contain_text("input_shapes")

    card.get_by_test_id("budget-max_latency_ms").fill("-5")
    form.get_by_test_id("budgets-save").click()
    error = card.locator("[data-testid=budget-error][data-field=max_latency_ms]")
    expect(error).to_contain_text("greater than 0")
    assert "max_latency_ms" not in (folder / "mnnwb.toml").read_text()

    card.get_by_test_id("budget-max_latency_ms").fill("10000")
    card.get_by_test_id("budget-max_size_mb").fill("2")
    form.get_by_test_id("budgets-save").click()
    expect(form.get_by_test_id("budgets-message")).to_have_text("Saved to mnnwb.toml.")
    expect(error).to_have_count(0)
    written = (folder / "mnnwb.toml").read_text()
    assert "# the shipped one" in written and "# who answers for a regression" in written
    budget = tomllib.loads(written)["budget"][0]
    assert budget == {"model": "model.mnn", "max_size_mb": 2, "max_latency_ms": 10000,
                      "input_shapes": {"input": [1, 3, 32, 32]}}
