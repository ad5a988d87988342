"""Model tools from the file tree: convert an ONNX model to fp16 MNN, read the result, inspect it;
benchmark on a backend the server has; quantize with a calibration file MNN cannot decode."""

import shutil
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.fakes import photos
from tests.fakes.models import conv_net
from tests.plugin.resources import ConvNetModels
from tests.waiting import wait_until
from tests.webui.workbench import create_project, open_project, saved_ui_state

pytestmark = pytest.mark.browser

# A conversion or an inspection of the small net takes about a second; the machine may be busy.
RUN_TIMEOUT_MS = 30_000


def size_text(size: int) -> str:
    """How the result view writes a file size."""
    if size < 1024:
        return f"{size} B"
    kb = size / 1024
    return f"{kb:.2f} KB" if kb < 10 else f"{kb:.1f} KB"


def converted(models: ConvNetModels, root: Path) -> None:
    """``net.onnx`` and ``net.mnn`` (converted once per process) in ``root``: for the tests of the
    tools used after a conversion; the tests of the conversion convert from the menu."""
    shutil.copyfile(models.onnx, root / "net.onnx")
    shutil.copyfile(models.mnn, root / "net.mnn")


def tool_from_menu(page: Page, path: str, item: str):
    page.locator(f"[data-testid=tree-item][data-path='{path}']").click(button="right")
    page.get_by_test_id(f"menu-tool-{item}").click()
    panel = page.locator(f"[data-testid=tool-panel][data-tool={item}][data-model='{path}']")
    expect(panel).to_be_visible()
    return panel


def test_convert_to_fp16_then_inspect_the_new_model(
    context: BrowserContext, live_server, tmp_path: Path
) -> None:
    project = create_project(live_server, "vision")
    root = Path(project["path"])
    source = conv_net(root / "net.onnx")
    page = open_project(context, live_server, project)

    convert = tool_from_menu(page, "net.onnx", "convert")
    convert.get_by_test_id("tool-field-fp16").check()
    convert.get_by_test_id("tool-run").click()
    expect(convert).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)

    output = root / "net.fp16.mnn"
    size = output.stat().st_size
    expect(convert.get_by_test_id("tool-output")).to_have_text("net.fp16.mnn")
    expect(convert.get_by_test_id("result-output-size")).to_have_text(size_text(size))
    ratio = source.stat().st_size / size
    expect(convert.get_by_test_id("result-compression")).to_have_text(f"{ratio:.2f}×")
    expect(page.locator("[data-testid=tree-item][data-path='net.fp16.mnn']")).to_be_visible()
    page.screenshot(path=tmp_path / "convert.png")

    inspect = tool_from_menu(page, "net.fp16.mnn", "inspect")
    expect(inspect).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    row = inspect.locator("[data-testid=io-input][data-name=input]")
    expect(row.get_by_test_id("io-shape")).to_have_text("[1, 3, 32, 32]")
    expect(inspect.get_by_test_id("result-file-size")).to_have_text(size_text(size))
    page.screenshot(path=tmp_path / "inspect.png")

    # The same run, opened in a new browser tab from the panel's header.
    run_id = inspect.get_attribute("data-run")
    with context.expect_page() as opened:
        inspect.get_by_test_id("tool-new-tab").click()
    tab = opened.value
    moved = tab.locator(f"[data-testid=tool-panel][data-tool=inspect][data-run='{run_id}']")
    expect(moved).to_have_attribute("data-status", "succeeded")
    expect(moved.locator("[data-testid=io-input][data-name=input] [data-testid=io-shape]")).to_have_text(
        "[1, 3, 32, 32]"
    )


def test_one_panel_per_tool_and_model_keeps_its_form_and_runs(
    context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "kept")
    conv_net(Path(project["path"]) / "net.onnx")
    (Path(project["path"]) / "data" / "calib_images").mkdir(parents=True)
    page = open_project(context, live_server, project)

    convert = tool_from_menu(page, "net.onnx", "convert")
    convert.get_by_test_id("tool-field-fp16").check()
    convert.get_by_test_id("tool-run").click()
    expect(convert).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    first = convert.get_attribute("data-run")

    # The menu again: the same panel, where a second run joins the first in its history.
    tool_from_menu(page, "net.onnx", "convert")
    expect(page.locator("[data-testid=tool-panel][data-tool=convert]")).to_have_count(1)
    convert.get_by_test_id("tool-run").click()
    expect(convert).not_to_have_attribute("data-run", first or "")
    expect(convert).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    second = convert.get_attribute("data-run")
    expect(convert.get_by_test_id("tool-run-history").locator("option")).to_have_count(2)

    # Compare on the new model: its reference is the model it was converted from. Tool panels
    # share one group, so the editor area keeps its one group beside the file tree.
    compare = tool_from_menu(page, "net.fp16.mnn", "compare")
    expect(compare.get_by_test_id("tool-field-reference")).to_have_value("net.onnx")
    expect(page.locator(".dv-groupview")).to_have_count(2)
    # Quantize picks its calibration folder among the project's folders, one named so by default.
    quantize = tool_from_menu(page, "net.fp16.mnn", "quantize")
    expect(quantize.get_by_test_id("tool-field-calibration")).to_have_value("data/calib_images")

    # After a reload the Convert panel shows its form as left and its last run.
    wait_until(lambda: second in saved_ui_state(live_server, project), what="the layout with the last run")
    page.reload()
    page.locator(".dv-tab", has_text="Convert · net.onnx").click()
    convert = page.locator("[data-testid=tool-panel][data-tool=convert][data-model='net.onnx']")
    expect(convert).to_have_attribute("data-run", second or "")
    expect(convert).to_have_attribute("data-status", "succeeded")
    expect(convert.get_by_test_id("tool-field-fp16")).to_be_checked()
    expect(convert.get_by_test_id("result-compression")).to_be_visible()


def test_benchmark_on_a_backend_the_server_has(
    context: BrowserContext, live_server, tmp_path: Path, conv_net_models: ConvNetModels
) -> None:
    """The form offers the server's backends only and says why the others are absent; the result
    names the backend, threads and precision it ran with."""
    project = create_project(live_server, "backends")
    converted(conv_net_models, Path(project["path"]))
    page = open_project(context, live_server, project)

    bench = tool_from_menu(page, "net.mnn", "benchmark")
    found = httpx.get(f"{live_server.url}/api/tools/backends", headers=live_server.auth).json()["backends"]
    usable = [b["name"] for b in found if b["available"]]
    picker = bench.get_by_test_id("tool-field-backend")
    expect(picker.locator("option")).to_have_count(len(usable))
    assert picker.locator("option").all_inner_texts() == usable
    absent = [b for b in found if not b["available"]]
    note = bench.get_by_test_id("tool-field-backend-absent")
    note.locator("summary").click()
    for backend in absent:
        expect(note.locator(f"li[data-backend={backend['name']}]")).to_have_text(
            f"{backend['name']} — {backend['reason']}")
    picker.select_option("CPU")
    bench.get_by_test_id("tool-field-threads").fill("2")
    bench.get_by_test_id("tool-field-precision").select_option("high")
    bench.get_by_test_id("tool-field-loops").fill("5")
    bench.get_by_test_id("tool-run").click()
    expect(bench).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    expect(bench.get_by_test_id("benchmark-config")).to_contain_text(
        "backend CPU · threads 2 · precision high · power normal")
    page.screenshot(path=tmp_path / "benchmark-backend.png")


def test_quantize_shows_the_calibration_files_it_skipped(
    context: BrowserContext, live_server, tmp_path: Path, conv_net_models: ConvNetModels
) -> None:
    project = create_project(live_server, "photos")
    root = Path(project["path"])
    converted(conv_net_models, root)
    calib = photos.calibration_folder(root / "calib", size=32, names=photos.PHOTOS[:3])
    photos.truncated(photos.photo("rocket.jpg"), calib / "cut.jpg")
    page = open_project(context, live_server, project)

    quantize = tool_from_menu(page, "net.mnn", "quantize")
    expect(quantize.get_by_test_id("tool-field-calibration")).to_have_value("calib")
    quantize.get_by_test_id("tool-run").click()
    expect(quantize).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    expect(quantize.get_by_test_id("result-samples")).to_have_text("3")
    row = quantize.get_by_test_id("quantize-skipped-file")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("cut.jpg")
    expect(row).to_contain_text("truncated JPEG: it ends before its end-of-image marker")
    expect(quantize.get_by_test_id("result-speed")).to_contain_text("→")
    expect(quantize.get_by_test_id("quantize-speed-setup")).to_contain_text("on CPU · 1 thread")
    page.screenshot(path=tmp_path / "quantize-skipped.png")
