"""Per-layer compare in the browser: how many tensors were paired, the first layer where the
model and its reference drift apart marked in the table, and that layer selected in the graph."""

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from server.modeltools import mnnfile
from tests.fakes import layered_models
from tests.plugin.tools import run_tool
from tests.webui.test_model_tools import RUN_TIMEOUT_MS, tool_from_menu
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def residual(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("residual-ui")
    source = layered_models.residual(folder / "residual.onnx")
    converted = folder / "residual.mnn"
    outcome = run_tool("convert", {"model": str(source), "output": str(converted)}, folder / "convert")
    assert outcome.status == "succeeded", outcome.error
    return converted, layered_models.residual(folder / "broken.onnx", broken=True)


def test_the_first_divergent_layer_is_marked_and_shown_in_the_graph(
    context: BrowserContext, live_server, residual: tuple[Path, Path]
) -> None:
    project = create_project(live_server, "layers")
    root = Path(project["path"])
    shutil.copy(residual[0], root / "residual.mnn")
    shutil.copy(residual[1], root / "broken.onnx")
    page = open_project(context, live_server, project)

    compare = tool_from_menu(page, "residual.mnn", "compare")
    compare.get_by_test_id("tool-field-reference").select_option("broken.onnx")
    compare.get_by_test_id("tool-run").click()
    expect(compare).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    expect(compare.get_by_test_id("compare-verdict")).to_contain_text("Fail")
    expect(compare.get_by_test_id("compare-coverage")).to_contain_text("matched")
    marked = compare.locator("[data-testid=compare-layer][data-divergent=true]")
    expect(marked).to_have_count(1)
    expect(marked.locator("td").first).to_have_text(layered_models.BROKEN_LAYER)
    banner = compare.get_by_test_id("compare-first-divergent")
    expect(banner).to_contain_text("above the threshold")

    with page.expect_popup() as popup:
        banner.get_by_test_id("compare-show-in-graph").click()
    graph = popup.value
    tensors = {name for op in mnnfile.read_model(root / "residual.mnn")["ops"] for name in op["outputs"]}
    selected = graph.locator("body[data-selected]")
    expect(selected).to_have_count(1, timeout=RUN_TIMEOUT_MS)
    assert selected.get_attribute("data-selected") in tensors
    expect(graph.locator("#canvas .select")).not_to_have_count(0)
