"""docs/tutorial.md and docs/tutorial/ agree: every picture the tutorial shows exists, every
picture there is shown, and each stays small (tests/webui/test_flow_walk.py makes them)."""

import re

from server.core.config import REPO_ROOT

TUTORIAL = REPO_ROOT / "docs" / "tutorial.md"
PICTURES = REPO_ROOT / "docs" / "tutorial"
IMAGE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
MAX_BYTES = 150_000


def _linked() -> set[str]:
    return set(IMAGE_LINK.findall(TUTORIAL.read_text()))


def test_every_picture_the_tutorial_shows_exists() -> None:
    linked = _linked()
    assert linked, "the tutorial shows no picture"
    missing = sorted(link for link in linked if not (TUTORIAL.parent / link).is_file())
    assert not missing, f"pictures the tutorial links but docs/ lacks: {missing}"


def test_every_picture_in_the_folder_is_shown_and_small() -> None:
    pictures = {f"tutorial/{p.name}" for p in PICTURES.glob("*.png")}
    assert pictures, "docs/tutorial/ holds no picture"
    assert pictures - _linked() == set(), "pictures in docs/tutorial/ the tutorial does not show"
    large = sorted(p.name for p in PICTURES.glob("*.png") if p.stat().st_size > MAX_BYTES)
    assert not large, f"pictures over {MAX_BYTES} bytes: {large}"
