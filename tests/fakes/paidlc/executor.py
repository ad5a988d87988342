"""Runs emulated DLC jobs as local process groups: clone, mount, run, sync back to OSS."""

import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .jobs import Job, Pod
from .oss import ObjectStore

STOP_GRACE_SECONDS = 3.0
DEFAULT_CODE_MOUNT = "/root/code/"


class SetupError(Exception):
    def __init__(self, reason_code: str, message: str) -> None:
        super().__init__(message)
        self.reason_code = reason_code


@dataclass
class Mount:
    mount_path: str
    local: Path
    bucket: str = ""
    prefix: str = ""
    writable: bool = False


def parse_oss_uri(uri: str) -> tuple[str, str]:
    """``oss://bucket[.endpoint]/prefix/`` → (bucket, prefix)."""
    parts = urlsplit(uri)
    if parts.scheme != "oss" or not parts.netloc:
        raise ValueError(f"not an OSS URI: {uri}")
    return parts.netloc.split(".")[0], parts.path.lstrip("/")


class Executor:
    def __init__(self, work_root: Path, store: ObjectStore, step_delay: float) -> None:
        self.work_root = work_root
        self.store = store
        self.step_delay = step_delay
        self._threads: list[threading.Thread] = []

    def start(self, job: Job, code_source: dict[str, Any]) -> None:
        thread = threading.Thread(
            target=self._run, args=(job, code_source), daemon=True, name=f"dlc-{job.job_id}"
        )
        self._threads.append(thread)
        thread.start()

    def shutdown(self, jobs: list[Job]) -> None:
        for job in jobs:
            job.stop_requested.set()
        for thread in self._threads:
            thread.join(timeout=STOP_GRACE_SECONDS + 2)

    def _run(self, job: Job, code_source: dict[str, Any]) -> None:
        try:
            for status in ("Queuing", "EnvPreparing"):
                if self._stopped(job):
                    return
                job.set_status(status)
                job.stop_requested.wait(self.step_delay)
            mounts = self._prepare(job, code_source, self.work_root / job.job_id)
            if self._stopped(job):
                return
            job.set_status("Running")
            self._run_pods(job, mounts)
            self._sync_back(mounts)
            self._finish(job)
        except SetupError as exc:
            job.set_status("Failed", exc.reason_code, str(exc))
        except Exception as exc:  # noqa: BLE001 - an emulator bug must still end the job
            job.set_status("Failed", "InternalError", f"{type(exc).__name__}: {exc}")

    def _stopped(self, job: Job) -> bool:
        if job.stop_requested.is_set():
            job.set_status("Stopped", "JobStoppedByUser", "Job is stopped by user.")
            return True
        return False

    def _finish(self, job: Job) -> None:
        if job.stop_requested.is_set():
            job.set_status("Stopped", "JobStoppedByUser", "Job is stopped by user.")
            return
        failed = [p for p in job.pods if p.exit_code != 0]
        if failed:
            pod = failed[0]
            job.set_status("Failed", "JobFailed", f"Pod {pod.pod_id} exited with code {pod.exit_code}.")
        else:
            job.set_status("Succeeded", "JobSucceeded", "Job succeeded.")

    def _prepare(self, job: Job, code_source: dict[str, Any], work: Path) -> list[Mount]:
        code = job.body.get("CodeSource") or {}
        mounts = [
            Mount(
                code.get("MountPath") or code_source.get("MountPath") or DEFAULT_CODE_MOUNT,
                work / "code",
            )
        ]
        _clone(code_source, code, mounts[0].local)
        for index, source in enumerate(job.body.get("DataSources") or []):
            bucket, prefix = parse_oss_uri(source["Uri"])
            writable = source.get("MountAccess", "ReadWrite") != "ReadOnly"
            mount = Mount(source["MountPath"], work / "mnt" / str(index), bucket, prefix, writable)
            mount.local.mkdir(parents=True)
            for key in self.store.keys(bucket, prefix):
                target = mount.local / key[len(prefix) :]
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(self.store.get(bucket, key)[1], target)
            mounts.append(mount)
        (work / "root").mkdir()
        return mounts

    def _run_pods(self, job: Job, mounts: list[Mount]) -> None:
        command = substitute(job.body.get("UserCommand") or "", mounts)
        envs = {k: substitute(str(v), mounts) for k, v in (job.body.get("Envs") or {}).items()}
        readers = [self._start_pod(job, pod, command, envs, mounts) for pod in job.pods]
        while any(p.proc and p.proc.poll() is None for p in job.pods):
            if job.stop_requested.wait(0.05):
                job.set_status("Stopping")
                _terminate(job.pods)
                break
        for pod, reader in zip(job.pods, readers, strict=True):
            reader.join(timeout=STOP_GRACE_SECONDS)
            pod.exit_code = pod.proc.wait() if pod.proc else -1
            pod.status = "Succeeded" if pod.exit_code == 0 else "Failed"
            pod.finished = time.time_ns()

    def _start_pod(
        self, job: Job, pod: Pod, command: str, envs: dict[str, str], mounts: list[Mount]
    ) -> threading.Thread:
        root = mounts[0].local.parent / "root"
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(root),
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            "JOB_ID": job.job_id,
            "RANK": str(pod.rank),
            "WORLD_SIZE": str(len(job.pods)),
            **envs,
        }
        pod.proc = subprocess.Popen(
            ["bash", "-c", command],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        pod.status, pod.started = "Running", time.time_ns()
        reader = threading.Thread(target=_read_logs, args=(pod,), daemon=True)
        reader.start()
        return reader

    def _sync_back(self, mounts: list[Mount]) -> None:
        for mount in mounts[1:]:
            if not mount.writable:
                continue
            for path in sorted(p for p in mount.local.rglob("*") if p.is_file()):
                key = mount.prefix + path.relative_to(mount.local).as_posix()
                self.store.put(mount.bucket, key, path.read_bytes())


def substitute(text: str, mounts: list[Mount]) -> str:
    """Point container mount paths at the local folders standing in for them."""
    for mount in sorted(mounts, key=lambda m: len(m.mount_path), reverse=True):
        text = text.replace(mount.mount_path.rstrip("/"), str(mount.local))
    return text


def _read_logs(pod: Pod) -> None:
    assert pod.proc is not None and pod.proc.stdout is not None
    for raw in pod.proc.stdout:
        pod.add_log(raw.decode("utf-8", "replace").rstrip("\r\n"))
    pod.proc.stdout.close()


def _terminate(pods: list[Pod]) -> None:
    live = [p.proc for p in pods if p.proc and p.proc.poll() is None]
    for proc in live:
        _signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for proc in live:
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def _clone(code_source: dict[str, Any], code: dict[str, Any], target: Path) -> None:
    repo = _repo_url(code_source)
    revision = (
        code.get("Commit")
        or code_source.get("CodeCommit")
        or f"origin/{code.get('Branch') or code_source.get('CodeBranch') or 'master'}"
    )
    base = ["git", "-c", "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false"]
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    steps = [
        ("Clone", ["clone", "--quiet", "--no-checkout", repo, str(target)]),
        ("Checkout", ["-C", str(target), "checkout", "--quiet", "--detach", revision]),
    ]
    for step, args in steps:
        result = subprocess.run(base + args, env=env, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise SetupError(
                f"CodeSource{step}Failed",
                f"git {step.lower()} failed: {result.stderr.strip()[-300:]}",
            )


def _repo_url(code_source: dict[str, Any]) -> str:
    repo = str(code_source.get("CodeRepo") or "")
    user, token = code_source.get("CodeRepoUserName"), code_source.get("CodeRepoAccessToken")
    parts = urlsplit(repo)
    if token and parts.scheme in ("http", "https"):
        netloc = f"{user or 'oauth2'}:{token}@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    return repo
