"""What the editor area shows besides text: the status bar's editor facts, a Markdown preview that
follows the typing, an image as an image, and a model file as its summary with the tools."""

import struct
import zlib
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.fakes.models import conv_net
from tests.webui.workbench import create_project, editor_lines, open_file, open_project

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 30_000


def png(width: int, height: int) -> bytes:
    """A valid RGB PNG of the given size, all grey."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * (3 * width) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + body


def test_status_bar_markdown_preview_and_image(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "views")
    root = Path(project["path"])
    (root / "notes.md").write_text("# Plan\n\n* convert\n* quantize\n\n![chart](chart.png)\n")
    (root / "chart.png").write_bytes(png(3, 2))
    (root / "dos.py").write_bytes(b"def f():\r\n\treturn 1\r\n")
    page = open_project(context, live_server, project)

    open_file(page, "notes.md")
    expect(page.get_by_test_id("status-cursor")).to_have_text("Ln 1, Col 1")
    expect(page.get_by_test_id("status-language")).to_have_text("Markdown")
    expect(page.get_by_test_id("status-encoding")).to_have_text("UTF-8")
    expect(page.get_by_test_id("status-eol")).to_have_text("LF")
    page.keyboard.press("ControlOrMeta+End")
    expect(page.get_by_test_id("status-cursor")).to_have_text("Ln 7, Col 1")

    page.get_by_test_id("markdown-preview-open").click()
    preview = page.get_by_test_id("markdown-preview")
    expect(preview.locator("h1")).to_have_text("Plan")
    expect(preview.locator("li")).to_have_count(2)
    expect(preview.locator("img")).to_have_js_property("naturalWidth", 3)
    editor_lines(page, "notes.md").click()
    page.keyboard.press("ControlOrMeta+Home")
    page.keyboard.type("# Today")
    expect(page.get_by_test_id("status-cursor")).to_have_text("Ln 1, Col 8")
    page.keyboard.press("Enter")  # prose pops up no word suggestion that would take the Enter
    expect(preview.locator("h1").first).to_have_text("Today")

    open_file(page, "dos.py")
    expect(page.get_by_test_id("status-language")).to_have_text("Python")
    expect(page.get_by_test_id("status-eol")).to_have_text("CRLF")

    page.locator("[data-testid=tree-item][data-path='chart.png']").click()
    expect(page.get_by_test_id("image-preview-info")).to_have_text("3 × 2 · " + f"{len(png(3, 2))} B")


def test_a_model_opened_in_the_editor_shows_its_summary_and_tools(
    context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "model-view")
    conv_net(Path(project["path"]) / "net.onnx")
    page = open_project(context, live_server, project)

    page.locator("[data-testid=tree-item][data-path='net.onnx']").click()
    view = page.get_by_test_id("model-view")
    inputs = view.get_by_test_id("model-summary-inputs")
    expect(inputs).to_have_text("input [1, 3, 32, 32]", timeout=RUN_TIMEOUT_MS)
    view.get_by_test_id("model-action-convert").click()
    expect(page.locator("[data-testid=tool-panel][data-tool=convert][data-model='net.onnx']")).to_be_visible()
