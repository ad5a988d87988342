"""The slow session resources (made in the background from the start, see tests/early.py), the
models and pipelines made once per session, and the xdist groups of the tests sharing them."""

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from server.core.config import Settings
from server.market import builtins
from tests.early import EarlyResources
from tests.fakes.llm import Llms, build_exports
from tests.fakes.ray_cluster import RayHead, S3Server, ray_head, s3_server
from tests.pg import running_cluster
from tests.plugin.server import free_port

if TYPE_CHECKING:
    from tests.fakes.photo_classifier import PhotoClassifier


@pytest.fixture(scope="session")
def photo_classifier(tmp_path_factory: pytest.TempPathFactory) -> "PhotoClassifier":
    """A classifier trained on an ImageFolder of real photos, with its ONNX, MNN fp32 and int8
    models and their specs (tests/fakes/photo_classifier.py), made once per session; its tests
    are one group (``SHARED``), so the two processes of ``make test`` do not both make it."""
    from tests.fakes.photo_classifier import build  # torch: imported by the tests that use it

    return build(tmp_path_factory.mktemp("photo-classifier"))


@pytest.fixture(scope="session")
def coins_pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The detector → orientation → recogniser chain of tests/device_bridge/test_pipeline.py,
    converted once per session. Here, not in that module: a session fixture imported into each
    module using it is made once per module that imports it."""
    from tests.device_bridge.test_pipeline import build_coins_pipeline

    return build_coins_pipeline(tmp_path_factory.mktemp("pipeline"))


@pytest.fixture(scope="session")
def ppocr_pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The PP-OCR pipeline of tests/device_bridge/test_ppocr_pipeline.py, converted once per
    session (here for the same reason as ``coins_pipeline``)."""
    from tests.device_bridge.test_ppocr_pipeline import build_ppocr_pipeline

    return build_ppocr_pipeline(tmp_path_factory.mktemp("ppocr"))


@dataclass(frozen=True)
class ConvNetModels:
    """``conv_net`` (tests/fakes/models.py) as ONNX and as the converter's fp32 MNN."""

    onnx: Path
    mnn: Path


@pytest.fixture(scope="session")
def conv_net_models(tmp_path_factory: pytest.TempPathFactory) -> ConvNetModels:
    """``conv_net`` converted once per process by the real runner, for the tests that need a
    converted model but do not test the conversion (copy the files, never write to them)."""
    from tests.fakes.models import conv_net
    from tests.plugin.tools import run_tool

    folder = tmp_path_factory.mktemp("conv-net")
    onnx, mnn = conv_net(folder / "model.onnx"), folder / "model.mnn"
    outcome = run_tool("convert", {"model": str(onnx), "output": str(mnn)}, folder / "convert")
    assert outcome.status == "succeeded", outcome
    return ConvNetModels(onnx, mnn)


@pytest.fixture(scope="session")
def conv_net_int8(conv_net_models: ConvNetModels, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``conv_net_models``'s MNN quantized to int8 once per process (4 calibration images)."""
    from tests.fakes.models import calibration_images
    from tests.plugin.tools import run_tool

    folder = tmp_path_factory.mktemp("conv-net-int8")
    int8 = folder / "model.int8.mnn"
    calibration = calibration_images(folder / "calibration", count=4, size=32)
    args = {"model": str(conv_net_models.mnn), "output": str(int8), "calibration": str(calibration)}
    outcome = run_tool("quantize", args, folder / "quantize")
    assert outcome.status == "succeeded", outcome
    return int8


@pytest.fixture(scope="session")
def llms(early: EarlyResources) -> Llms:
    """A tiny Qwen2 made here, exported once per session at 16 and 4 bits (see tests/fakes/llm.py)."""
    return early.get("llms")


@pytest.fixture(scope="session")
def ray_cluster(early: EarlyResources) -> RayHead:
    """One real local Ray head for every Ray test of the session (it takes 30-90 s to start)."""
    return early.get("ray_cluster")


@pytest.fixture(scope="session")
def builtin_build(early: EarlyResources) -> Path:
    """One real build of the built-in algorithms (training, ONNX export, conversion,
    measurement), shared by every server of the session that lists the market."""
    return early.get("builtin_build")


def seed_builtins(settings: Settings, built: Path) -> Path:
    """Put the session's build where ``settings`` looks for it; the market then builds nothing."""
    target = builtins.builtin_root(settings) / built.name
    shutil.copytree(built, target)
    return target


@pytest.fixture
def builtins_ready(settings: Settings, builtin_build: Path) -> Path:
    """The session's build of the built-in algorithms, put where ``settings`` looks for it."""
    return seed_builtins(settings, builtin_build)


EARLY = pytest.StashKey[EarlyResources]()


# Tests sharing one of these run in one process of the suite (``make test`` runs two), so each
# is made once: the name of its group.
SHARED = {"ray_cluster": "ray", "llms": "llm", "fuzzed": "schemathesis", "photo_classifier": "photos"}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests sharing the Ray head run one after the other, from where the first one was, so
    the head runs (and is stopped after the last one) for them alone; tests sharing a costly
    resource are one group for the two processes of ``make test``."""
    using = [item for item in items if "ray_cluster" in getattr(item, "fixturenames", ())]
    if using:
        first = items.index(using[0])
        grouped = set(using)
        rest = [item for item in items if item not in grouped]
        items[:] = rest[:first] + using + rest[first:]
    for item in items:
        for name in getattr(item, "fixturenames", ()):
            if name in SHARED:
                item.add_marker(pytest.mark.xdist_group(SHARED[name]))
                break


@pytest.fixture(scope="session", autouse=True)
def early(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[EarlyResources]:
    """The slow session resources, made in the background from the start (see tests/early.py)."""
    resources = EarlyResources()
    resources.register("llms", lambda _: build_exports(tmp_path_factory.mktemp("llm")))
    # A Ray head keeps a core busy while it waits: started 40 tests before its first user. Its
    # folder is short: Ray's socket paths must stay under 108 bytes, and pytest's are long.
    resources.register("ray_cluster", lambda stack: stack.enter_context(ray_head(Path(stack.enter_context(
        tempfile.TemporaryDirectory(prefix="mnnwb-ray-", ignore_cleanup_errors=True))))), ahead=40)
    resources.register("builtin_build", lambda _: builtins.ensure_built(
        Settings(data_dir=tmp_path_factory.mktemp("market-build") / "data")))
    # ``database_url`` asks for the cluster only for its PostgreSQL half
    resources.register("pg_cluster", lambda stack: stack.enter_context(
        running_cluster(free_port())), also=("database_url",))
    request.session.stash[EARLY] = resources
    # In one of several processes, which tests this one will run is not known in advance: each
    # resource is then made when first asked for.
    resources.plan(request.session.items, start=not os.environ.get("PYTEST_XDIST_WORKER"))
    try:
        yield resources
    finally:
        resources.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Tell the early resources a test is done, so they stop those no later test needs."""
    yield
    resources = item.session.stash.get(EARLY, None)
    if resources is not None:
        resources.done_with(item)


@pytest.fixture(scope="session")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """moto's S3 server on 127.0.0.1 with the ``mnnwb-ray`` bucket."""
    with s3_server("mnnwb-ray") as server:
        yield server
