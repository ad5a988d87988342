"""The whole cloud flow through the real SDK clients against the emulator."""

import hashlib
import random
import time
from pathlib import Path

from server.training.cloud import CloudJob, DownloadProgress, JobRequest, LogCursor, PaiDlcClient
from tests.fakes.paidlc import Emulator
from tests.waiting import process_running, wait_until

from .conftest import Remote, git, push_project

# After its first 400 lines the job waits for the file named by its argument, which the test
# creates once it has read part of the log while the job was running.
TRAIN_PY = """\
import os, random, sys, time
out = os.environ["MNNWB_OUTPUT_DIR"]
for i in range(1200):
    print(f"step {i}", flush=True)
    while i == 399 and not os.path.exists(sys.argv[1]):
        time.sleep(0.02)
rng = random.Random(7)
with open(os.path.join(out, "model.bin"), "wb") as f:
    f.write(bytes(rng.getrandbits(8) for _ in range(300_000)))
os.makedirs(os.path.join(out, "logs"), exist_ok=True)
with open(os.path.join(out, "logs", "metrics.jsonl"), "w") as f:
    f.write('{"loss": 0.5}\\n')
print("done", flush=True)
"""
METRICS = b'{"loss": 0.5}\n'


wait_for = wait_until


def submit(dlc: PaiDlcClient, remote: Remote, command: str, key: str) -> str:
    source = dlc.ensure_code_source(remote.url, remote.branch)
    request = JobRequest(
        display_name=key,
        command=command,
        code_source_id=source,
        commit=remote.commit,
        output_prefix=dlc.settings.output_prefix(key),
    )
    return dlc.create_job(request)


def finished(dlc: PaiDlcClient, job_id: str, timeout: float = 20.0) -> CloudJob:
    return wait_for(lambda: (j := dlc.get_job(job_id)).finished and j, timeout)


def stream_logs(dlc: PaiDlcClient, job_id: str, go: Path) -> tuple[list[str], set[int]]:
    """Poll logs until the job ends; return all lines and the line counts seen while it ran.

    ``go`` is created once some lines were read while the job ran, to let the job carry on."""
    job = wait_for(lambda: ((j := dlc.get_job(job_id)).status == "Running" or j.finished) and j)
    pod_id = job.pods[0].pod_id
    lines: list[str] = []
    cursor, while_running = LogCursor(), set()
    while not job.finished:
        chunk = dlc.pod_logs(job_id, pod_id, cursor)
        lines, cursor = lines + chunk.lines, chunk.cursor
        job = dlc.get_job(job_id)
        if not job.finished:
            while_running.add(len(lines))
            if lines:
                go.touch()
        time.sleep(0.1)  # the interval of a client's log poll, not a wait for a condition
    return lines + dlc.pod_logs(job_id, pod_id, cursor).lines, while_running


def test_job_runs_from_pushed_commit_and_streams_its_logs(dlc: PaiDlcClient, tmp_path: Path) -> None:
    remote = push_project(tmp_path, {"train.py": TRAIN_PY})
    source = dlc.ensure_code_source(remote.url, remote.branch)
    assert dlc.ensure_code_source(remote.url, remote.branch) == source  # reused, not duplicated
    go = tmp_path / "go"
    job_id = submit(dlc, remote, f"python3 train.py {go}", "stream")
    lines, while_running = stream_logs(dlc, job_id, go)
    job = dlc.get_job(job_id)
    assert job.status == "Succeeded", (job.reason_code, job.reason_message, lines[-5:])
    assert lines == [f"step {i}" for i in range(1200)] + ["done"]
    # Part of the log was read while the job still ran: the logs stream, they do not arrive at the end.
    assert any(0 < count < len(lines) for count in while_running), sorted(while_running)
    assert any("Succeeded" in event for event in dlc.job_events(job_id))

    prefix = dlc.settings.output_prefix("stream")
    listed = {a.path: a.size for a in dlc.list_artifacts(prefix)}
    assert listed == {"model.bin": 300_000, "logs/metrics.jsonl": len(METRICS)}
    progress: list[DownloadProgress] = []
    files = dlc.download_artifacts(prefix, tmp_path / "artifacts", progress.append)
    rng = random.Random(7)
    expected = bytes(rng.getrandbits(8) for _ in range(300_000))
    model = (tmp_path / "artifacts" / "model.bin").read_bytes()
    assert hashlib.sha256(model).hexdigest() == hashlib.sha256(expected).hexdigest()
    assert (tmp_path / "artifacts" / "logs" / "metrics.jsonl").read_bytes() == METRICS
    assert sorted(f.path for f in files) == ["logs/metrics.jsonl", "model.bin"]
    assert progress[-1].done == progress[-1].total == 300_000 + len(METRICS)


def test_job_runs_the_pushed_commit_not_the_branch_tip(dlc: PaiDlcClient, tmp_path: Path) -> None:
    remote = push_project(tmp_path, {"run.sh": "echo first\n"})
    work = tmp_path / "work"
    (work / "run.sh").write_text("echo second\n")
    git("commit", "--quiet", "-am", "later", cwd=work)
    git("push", "--quiet", str(tmp_path / "remote.git"), "main", cwd=work)
    job_id = submit(dlc, remote, "bash run.sh", "pinned")
    job = finished(dlc, job_id)
    assert job.status == "Succeeded"
    assert dlc.pod_logs(job_id, job.pods[0].pod_id).lines == ["first"]


def test_failing_command_fails_the_job_with_a_reason(dlc: PaiDlcClient, tmp_path: Path) -> None:
    remote = push_project(tmp_path, {"run.sh": "echo oops; exit 3\n"})
    job = finished(dlc, submit(dlc, remote, "bash run.sh", "failing"))
    assert (job.status, job.runner_status) == ("Failed", "failed")
    assert "exited with code 3" in job.reason_message


def test_stop_job_kills_the_whole_process_group(dlc: PaiDlcClient, tmp_path: Path) -> None:
    script = 'sleep 30 & echo "child $!"; wait; echo finished\n'
    remote = push_project(tmp_path, {"run.sh": script})
    job_id = submit(dlc, remote, "bash run.sh", "stopped")
    job = wait_for(lambda: (j := dlc.get_job(job_id)).status == "Running" and j)
    pod = job.pods[0].pod_id
    first = wait_for(lambda: dlc.pod_logs(job_id, pod).lines)
    child = int(first[0].split()[1])
    dlc.stop_job(job_id)
    job = finished(dlc, job_id, timeout=10)
    assert (job.status, job.runner_status) == ("Stopped", "stopped")
    assert dlc.pod_logs(job_id, pod).lines == first  # "finished" never printed
    wait_for(lambda: not process_running(child), timeout=5)



def test_unknown_commit_fails_the_job_at_checkout(
    dlc: PaiDlcClient, emulator: Emulator, tmp_path: Path
) -> None:
    remote = push_project(tmp_path, {"run.sh": "true\n"})
    remote.commit = "0" * 40
    job = finished(dlc, submit(dlc, remote, "bash run.sh", "nocommit"))
    assert job.status == "Failed" and job.reason_code == "CodeSourceCheckoutFailed"
