"""The local runner with real processes: output, metrics, exit codes, stop, artifacts."""

import json
from pathlib import Path

import pytest

from server.core.errors import Conflict, Invalid
from server.sandbox import Sandbox
from server.training.local import LocalRunner
from server.training.watcher import MAX_BATCH
from tests.server.training.recorder import RecordingSink, make_spec


@pytest.fixture
def sink() -> RecordingSink:
    return RecordingSink()


@pytest.fixture
def runner(sink: RecordingSink, tmp_path: Path):
    runner = LocalRunner(sink, tmp_path / "jobs", Sandbox(True, hidden=(tmp_path / "jobs",)),
                         stop_grace=1.0)
    yield runner
    runner.close()


def test_a_job_runs_in_the_project_and_reports_logs_metrics_and_artifacts(runner, sink, tmp_path):
    spec = make_spec(tmp_path, (
        "import json, os, pathlib\n"
        "out = pathlib.Path(os.environ['MNNWB_OUTPUT_DIR'])\n"
        "(out / 'model.bin').write_bytes(b'abc')\n"
        "print('cwd', os.getcwd())\n"
        "print('MNNWB_METRIC ' + json.dumps({'step': 1, 'loss': 0.5}))\n"
        "print('MNNWB_METRIC not json')\n"
        "print('héllo ✓', os.environ['GREETING'])\n"
    ), env={"GREETING": "hi"})
    runner.submit(spec)
    assert sink.transitions[spec.id][0].status == "running"
    assert sink.transitions[spec.id][0].pid > 0
    done = sink.wait_status(spec.id, "succeeded", "failed")
    assert (done.status, done.exit_code) == ("succeeded", 0)
    log = (spec.job_dir / "output.log").read_text()
    assert sink.text(spec.id) == log
    assert f"cwd {spec.project_path}" in log and "héllo ✓ hi" in log
    assert sink.points[spec.id] == [{"step": 1, "loss": 0.5}]
    artifacts = runner.artifacts(spec.id)
    assert [(a.path, a.size) for a in artifacts] == [(f"outputs/{spec.id}/model.bin", 3)]
    chunk = runner.logs(spec.id, 0)
    assert (chunk.text, chunk.offset, chunk.eof) == (log, len(log.encode()), True)
    assert runner.poll(spec.id) == "succeeded"


def test_a_failing_job_reports_its_exit_code(runner, sink, tmp_path):
    spec = make_spec(tmp_path, "import sys\nprint('bad')\nsys.exit(3)\n")
    runner.submit(spec)
    done = sink.wait_status(spec.id, "succeeded", "failed")
    assert (done.status, done.exit_code, done.reason) == ("failed", 3, "exited with code 3")


def test_a_missing_program_fails_with_the_reason_in_the_log(runner, sink, tmp_path):
    spec = make_spec(tmp_path, "", command="no-such-program-here --x")
    runner.submit(spec)
    done = sink.wait_status(spec.id, "succeeded", "failed")
    assert done.exit_code == 127
    # Looked up inside the sandbox, which names the program and the reason.
    assert "‘no-such-program-here’: No such file or directory" in sink.text(spec.id)


def test_bad_commands_and_configs_are_refused(runner, tmp_path):
    with pytest.raises(Invalid, match="empty"):
        runner.submit(make_spec(tmp_path, "", command="  "))
    with pytest.raises(Invalid, match="parse"):
        runner.submit(make_spec(tmp_path, "", command="python 'unclosed"))
    with pytest.raises(Invalid, match="config"):
        runner.submit(make_spec(tmp_path, "", unknown=1))


def test_output_is_streamed_in_order_with_contiguous_offsets(runner, sink, tmp_path):
    spec = make_spec(tmp_path, (
        "import sys\n"
        "for i in range(20000):\n"
        "    print(f'line {i} ünïcode')\n"
        f"sys.stdout.write('x' * {MAX_BATCH + 10} + 'é' * 5)\n"
    ))
    runner.submit(spec)
    sink.wait_status(spec.id, "succeeded", "failed")
    batches = sink.log_batches[spec.id]
    assert batches[0][0] == 0
    assert all(prev[2] == nxt[0] for prev, nxt in zip(batches, batches[1:], strict=False))
    text = sink.text(spec.id)
    lines = text.splitlines()
    assert lines[:20000] == [f"line {i} ünïcode" for i in range(20000)]
    assert lines[20000] == "x" * (MAX_BATCH + 10) + "é" * 5
    assert batches[-1][2] == len(text.encode())


def test_stop_terms_the_group_and_the_job_ends_stopped(runner, sink, tmp_path):
    spec = make_spec(tmp_path, "import time\nprint('ready', flush=True)\ntime.sleep(60)\n")
    runner.submit(spec)
    sink.wait_for(lambda: "ready" in sink.text(spec.id))
    runner.stop(spec.id)
    done = sink.wait_status(spec.id, "stopped", "failed", "succeeded", timeout=10)
    assert (done.status, done.exit_code) == ("stopped", -15)
    with pytest.raises(Conflict):
        runner.stop(spec.id)


def test_stop_kills_a_job_that_ignores_term_after_the_grace_period(runner, sink, tmp_path):
    spec = make_spec(tmp_path, (
        "import signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    ))
    runner.submit(spec)
    sink.wait_for(lambda: "ready" in sink.text(spec.id))
    runner.stop(spec.id)
    done = sink.wait_status(spec.id, "stopped", "failed", "succeeded", timeout=10)
    assert done.status == "stopped"
    assert done.exit_code is None  # the wrapper went down with the group
    assert json.loads((spec.job_dir / "spec.json").read_text())["cwd"] == str(spec.project_path)
