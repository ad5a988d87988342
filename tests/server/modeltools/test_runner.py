"""Containment: bad files, crashes, hangs, cancels, parallel runs, and no network."""

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from server.modeltools.formats import BadModelFile, check_model_file
from server.modeltools.pool import Standby, WorkerPool
from server.modeltools.runner import Limits, WorkerSpec, run_worker
from tests.server.modeltools.conftest import Models, RecordingLauncher, run_tool
from tests.waiting import process_running, wait_until

FAULT = "MNNWB_WORKER_TEST_FAULT"


def _bad_files(zoo: Models, folder: Path) -> dict[str, Path]:
    folder.mkdir()
    random_bytes = np.random.default_rng(3).bytes(4096)
    files = {
        "empty": folder / "empty.onnx",
        "truncated_onnx": folder / "truncated.onnx",
        "truncated_mnn": folder / "truncated.mnn",
        "random_mnn": folder / "random.mnn",
        "mnn_named_onnx": folder / "really_mnn.onnx",
        "wrong_extension": folder / "model.txt",
    }
    files["empty"].write_bytes(b"")
    files["truncated_onnx"].write_bytes(zoo.conv.read_bytes()[:3000])
    files["truncated_mnn"].write_bytes(zoo.conv_mnn.read_bytes()[:4000])
    files["random_mnn"].write_bytes(random_bytes)
    files["mnn_named_onnx"].write_bytes(zoo.conv_mnn.read_bytes())
    files["wrong_extension"].write_bytes(zoo.conv.read_bytes())
    return files


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("empty", "the file is empty"),
        ("mnn_named_onnx", "not a ONNX model"),
        ("wrong_extension", "this tool takes"),
        ("missing", "file not found"),
    ],
)
def test_quick_checks_reject_bad_files(zoo: Models, tmp_path: Path, case: str, message: str):
    files = _bad_files(zoo, tmp_path / "bad")
    path = files.get(case, tmp_path / "missing.onnx")
    with pytest.raises(BadModelFile, match=message):
        check_model_file(path)


@pytest.mark.parametrize(
    ("case", "tool", "message"),
    [
        ("truncated_onnx", "convert", "not onnx model"),
        ("truncated_mnn", "inspect", "MNN cannot load this model"),
        ("random_mnn", "benchmark", "MNN cannot load this model"),
        ("truncated_onnx", "inspect", "not a readable ONNX model"),
        ("wrong_extension", "inspect", "unsupported model type"),
    ],
)
def test_corrupt_files_fail_cleanly_in_the_worker(
    zoo: Models, tmp_path: Path, case: str, tool: str, message: str
) -> None:
    path = _bad_files(zoo, tmp_path / "bad")[case]
    args = (
        {"model": str(path), "output": str(tmp_path / "out.mnn")}
        if tool == "convert"
        else {"model": str(path)}
    )
    outcome = run_tool(tool, args, tmp_path / "run")
    assert outcome.status == "failed"
    assert message in outcome.error
    assert "Traceback" not in outcome.error


def test_segfault_is_reported_as_a_crash(zoo: Models, run_dir: Path) -> None:
    outcome = run_tool("inspect", {"model": str(zoo.conv_mnn)}, run_dir, extra_env={FAULT: "segv"})
    assert outcome.status == "crashed"
    assert outcome.error.startswith("crashed (signal 11, SIGSEGV)")
    assert outcome.returncode == -11


def test_hung_worker_is_killed_at_its_timeout(zoo: Models, run_dir: Path) -> None:
    outcome = run_tool(
        "inspect", {"model": str(zoo.conv_mnn)}, run_dir, timeout=1.5, extra_env={FAULT: "hang"}
    )
    assert outcome.status == "failed"
    assert outcome.error == "timed out after 1.5 s"
    assert 1.5 <= outcome.seconds < 6


def test_cancel_kills_the_whole_process_group(zoo: Models, run_dir: Path) -> None:
    cancel = threading.Event()
    spec = WorkerSpec("inspect", {"model": str(zoo.conv_mnn)}, run_dir, extra_env={FAULT: "hang"})
    pids: list[int] = []

    def worker_pids() -> list[int]:
        log = spec.log_path.read_text() if spec.log_path.exists() else ""
        return [int(p) for line in log.splitlines() if line.startswith("test-fault pids")
                for p in line.split()[2:]]

    def fire() -> None:
        try:
            pids.extend(wait_until(worker_pids, what="the worker to print its pids"))
        finally:
            cancel.set()

    threading.Thread(target=fire, daemon=True).start()
    outcome = run_worker(spec, cancel=cancel)
    assert outcome.status == "cancelled"
    assert len(pids) == 2
    wait_until(
        lambda: not any(process_running(pid) for pid in pids), timeout=5, what="the worker's processes to end"
    )



def test_memory_limit_is_enforced_and_explained(zoo: Models, run_dir: Path) -> None:
    spec = WorkerSpec("inspect", {"model": str(zoo.conv_mnn)}, run_dir, Limits(timeout_s=60, memory_mb=100))
    outcome = run_worker(spec)
    assert outcome.status in ("failed", "crashed")
    assert "out of memory (limit 100 MB)" in outcome.error.splitlines()[0]


def test_fault_switch_is_not_inherited_from_the_server(
    zoo: Models, run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FAULT, "segv")
    assert run_tool("inspect", {"model": str(zoo.conv_mnn)}, run_dir).status == "succeeded"


def test_pool_runs_several_at_once_within_its_bound(zoo: Models, tmp_path: Path) -> None:
    pool = WorkerPool(size=2)
    active, peak, lock = [0], [0], threading.Lock()

    def started() -> None:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])

    handles = []
    for index in range(3):
        spec = WorkerSpec(
            "inspect", {"model": str(zoo.conv_mnn)}, tmp_path / f"r{index}", Limits(timeout_s=60)
        )
        handle = pool.submit(spec, on_start=started)
        handle.future.add_done_callback(lambda _f: _leave(active, lock))
        handles.append(handle)
    outcomes = [h.future.result(timeout=60) for h in handles]
    pool.shutdown()
    assert [o.status for o in outcomes] == ["succeeded"] * 3
    assert peak[0] == 2


def _leave(active: list[int], lock: threading.Lock) -> None:
    with lock:
        active[0] -= 1


# Each event is written as it happens: the worker ends with os._exit, skipping any code after it.
AUDITED_WORKER = """
import runpy, sys
log, sys.argv = open(sys.argv[1], "w"), ["worker", *sys.argv[2:]]
def hook(event, args):
    if event.startswith("socket.") or event in ("urllib.Request", "http.client.connect"):
        log.write(event + "\\n")
        log.flush()
sys.addaudithook(hook)
if sys.argv[1] == "selftest":
    import socket
    socket.socket().close()
else:
    runpy.run_module("server.modeltools.worker", run_name="__main__")
"""


def _audited(tool: str, args: dict, folder: Path) -> list[str]:
    folder.mkdir(parents=True)
    (folder / "args.json").write_text(json.dumps(args))
    log = folder / "events.txt"
    command = [sys.executable, "-c", AUDITED_WORKER, str(log), tool, "args.json", "result.json"]
    subprocess.run(command, cwd=folder, check=True, timeout=60, capture_output=True)
    if tool != "selftest":
        assert json.loads((folder / "result.json").read_text())["ok"] is True
    return [e for e in log.read_text().split("\n") if e]


def test_no_socket_is_opened(zoo: Models, tmp_path: Path) -> None:
    assert _audited("selftest", {}, tmp_path / "selftest") == ["socket.__new__"]
    runs = {
        "convert": {"model": str(zoo.conv), "output": str(tmp_path / "c.mnn"), "fp16": True},
        "quantize": {
            "model": str(zoo.conv_mnn),
            "output": str(tmp_path / "q.mnn"),
            "calibration": str(zoo.calibration),
        },
        "inspect": {"model": str(zoo.conv_mnn)},
    }
    for tool, args in runs.items():
        assert _audited(tool, args, tmp_path / tool) == [], tool


def test_standby_runs_exactly_one_job_each(zoo: Models, tmp_path: Path) -> None:
    standby = Standby(Limits())
    launcher = RecordingLauncher(standby)
    try:
        for index in range(2):
            standby.refill()
            assert standby.wait_ready(60) is True and standby.wait_ready(0) is True
            spec = WorkerSpec("inspect", {"model": str(zoo.conv_mnn)}, tmp_path / f"r{index}")
            outcome = run_worker(spec, launcher=launcher)
            assert outcome.status == "succeeded", outcome.error
            assert "MNNWB_PROGRESS" in spec.log_path.read_text()
        faulty = WorkerSpec("inspect", {}, tmp_path / "env", extra_env={FAULT: "segv"})
        assert standby.take(faulty) is None
    finally:
        standby.close()
    assert len(launcher.pids) == 2 and launcher.pids[0] != launcher.pids[1]


def test_a_failed_conversion_keeps_the_existing_output(zoo: Models, tmp_path: Path) -> None:
    output = tmp_path / "model.mnn"
    output.write_bytes(b"the model from yesterday")
    broken = _bad_files(zoo, tmp_path / "bad")["truncated_onnx"]
    outcome = run_tool("convert", {"model": str(broken), "output": str(output)}, tmp_path / "r")
    assert outcome.status == "failed"
    assert output.read_bytes() == b"the model from yesterday"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "model.mnn", "r"]
