"""Element screenshots compared with baselines kept in ``tests/webui/screenshots/``.

A screenshot is taken with animations stopped and the caret hidden, with any changing text
(times, ids) masked, and compared pixel by pixel with Pillow: a pixel differs when a channel moves
by more than ``CHANNEL_SLACK``, and the shot matches while at most ``MAX_DIFFERING`` of its pixels
differ (anti-aliasing may move by a shade between runs; a layout change moves thousands). On a
mismatch the actual image and a diff (differing pixels in red over a faded copy) are saved beside
the test's ``tmp_path`` and the test fails naming them. ``MNNWB_UPDATE_SCREENSHOTS=1`` writes the
baselines instead of comparing.
"""

import io
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops
from playwright.sync_api import Locator

BASELINES = Path(__file__).parent / "screenshots"
UPDATE = os.environ.get("MNNWB_UPDATE_SCREENSHOTS") == "1"
CHANNEL_SLACK = 24
MAX_DIFFERING = 0.002


def shot(element: Locator, mask: list[Locator] | None = None) -> Image.Image:
    """The element as the person sees it, frozen: no animation, no caret, masked parts grey."""
    png = element.screenshot(animations="disabled", caret="hide", mask=mask or [], mask_color="#808080")
    return Image.open(io.BytesIO(png)).convert("RGB")


def differing(expected: Image.Image, actual: Image.Image) -> Image.Image:
    """A mask of the pixels where some channel moved by more than the slack."""
    delta = ImageChops.difference(expected, actual).convert("L")
    return delta.point(lambda value: 255 if value > CHANNEL_SLACK else 0)


def diff_image(expected: Image.Image, mask: Image.Image) -> Image.Image:
    faded = Image.blend(expected, Image.new("RGB", expected.size, "white"), 0.6)
    faded.paste(Image.new("RGB", expected.size, (255, 0, 0)), mask=mask)
    return faded


def assert_screenshot(element: Locator, name: str, tmp_path: Path, mask: list[Locator] | None = None) -> None:
    """Compare ``element`` with the baseline ``<name>.png`` (or write it, when updating)."""
    actual = shot(element, mask)
    baseline = BASELINES / f"{name}.png"
    if UPDATE:
        BASELINES.mkdir(exist_ok=True)
        actual.save(baseline, optimize=True)
        return
    if not baseline.exists():
        pytest.fail(f"no baseline {baseline.name}: run once with MNNWB_UPDATE_SCREENSHOTS=1 and review it")
    expected = Image.open(baseline).convert("RGB")
    actual_path = tmp_path / f"{name}.actual.png"
    if expected.size != actual.size:
        actual.save(actual_path)
        pytest.fail(f"{name}: {actual.size[0]}×{actual.size[1]} px, the baseline is "
                    f"{expected.size[0]}×{expected.size[1]}; see {actual_path}")
    mask_image = differing(expected, actual)
    count = mask_image.histogram()[255]
    allowed = int(MAX_DIFFERING * expected.size[0] * expected.size[1])
    if count > allowed:
        actual.save(actual_path)
        diff_path = tmp_path / f"{name}.diff.png"
        diff_image(expected, mask_image).save(diff_path)
        pytest.fail(f"{name}: {count} pixels differ from the baseline (at most {allowed}); "
                    f"see {actual_path} and {diff_path}")
