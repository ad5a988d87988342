"""The sandbox's denials, proved once on real bubblewrap processes (docs/security.md, "The
sandbox"); each caller's own tests prove that it starts its processes through it."""

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.core.errors import Unavailable
from server.sandbox import Limits, Policy, Sandbox, exit_status
from server.sandbox.limits import limit_reason

PROBE = Path(__file__).with_name("probe.py")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data directory as the server keeps it: two members' projects, the key, the database."""
    data = tmp_path / "data"
    for name in ("a", "b"):
        (data / "projects" / name).mkdir(parents=True)
        (data / "projects" / name / "train.py").write_text(f"# {name}'s code\n")
    (data / "secrets.key").write_text("the key")
    (data / "workbench.db").write_bytes(b"SQLite format 3\0")
    return data


@pytest.fixture
def server_port() -> Iterator[int]:
    """A port listening on this machine's loopback, as the server's does."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        yield listener.getsockname()[1]


def assert_confined(seen: dict) -> None:
    """What the probe saw from inside: nothing of the data directory but its own project, no
    write to the system, no server port, no processes but its own. (A write to the other
    project's path lands in the sandbox's own /tmp when the data directory lies in /tmp, as the
    tests' do: the callers check that nothing reached the real folder.)"""
    assert seen["read_other_project"] == seen["list_other_project"] == "FileNotFoundError"
    assert seen["read_secrets_key"] == seen["read_database"] == "FileNotFoundError"
    assert seen["write_own_project"] == "allowed"
    assert seen["write_system"] == seen["write_root"] == "OSError"  # read-only file system
    assert not Path("/usr/planted.txt").exists() and not Path("/planted.txt").exists()
    assert seen["connect_server"] == "ConnectionRefusedError"
    assert not seen["server_pid_visible"] and max(seen["pids"]) < 100  # type: ignore[operator]
    assert seen["env"] == [] and seen["home"] == "/home/sandbox"


def run_probe(sandbox: Sandbox, data: Path, port: int, network: str) -> dict:
    project = data / "projects" / "a"
    policy = Policy(cwd=project, writable=(project,), readable=(PROBE.parent,),
                    network=network)  # type: ignore[arg-type]
    other = data / "projects" / "b"
    argv = sandbox.wrap([sys.executable, str(PROBE), str(data), str(other), str(port),
                         str(os.getpid())], policy)
    env = {**os.environ, "MNNWB_DATABASE_URL": "postgresql://u:secret@db/wb"}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("network", ["none", "outbound"])
def test_a_member_reaches_only_their_own_project(data_dir, server_port, network):
    sandbox = Sandbox(True, network=network, hidden=(data_dir,),
                      secret_env=("MNNWB_DATABASE_URL",))
    assert sandbox.state == "on", sandbox.reason
    seen = run_probe(sandbox, data_dir, server_port, network)
    assert_confined(seen)
    assert (data_dir / "projects" / "a" / "written-by-probe.txt").read_text() == "planted"
    assert not (data_dir / "projects" / "b" / "planted.txt").exists()
    assert seen["default_route"] == (network == "outbound")


def test_the_data_directory_stays_hidden_inside_a_readable_folder(tmp_path, server_port):
    """A data directory inside a folder the sandbox reads (the server's code) is masked."""
    code = tmp_path / "code"
    data = code / "data"
    (data / "projects" / "a").mkdir(parents=True)
    (data / "secrets.key").write_text("the key")
    (code / "tool.py").write_text("print('tool')\n")
    sandbox = Sandbox(True, hidden=(data,))
    project = data / "projects" / "a"
    policy = Policy(cwd=project, writable=(project,), readable=(code,))
    argv = sandbox.wrap(["sh", "-c", f"cat {code}/tool.py; ls -A {data}; cat {data}/secrets.key"],
                        policy)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["print('tool')", "projects"]
    assert "No such file" in done.stderr


def test_an_interpreter_inside_the_data_directory_is_not_mounted(tmp_path):
    """A project's interpreter setting naming another project's environment mounts nothing."""
    data = tmp_path / "data"
    (data / "projects" / "b" / ".venv" / "bin").mkdir(parents=True)
    (data / "projects" / "a").mkdir(parents=True)
    sandbox = Sandbox(True, hidden=(data,))
    project = data / "projects" / "a"
    interpreter = str(data / "projects" / "b" / ".venv" / "bin" / "python")
    policy = sandbox.for_user_code(project, writable=(project,), interpreter=interpreter)
    assert policy.readable == ()
    done = subprocess.run(sandbox.wrap(["ls", str(data / "projects")], policy),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["a"]


def test_stop_signals_reach_the_command_and_the_caller_sees_them(tmp_path):
    """A caller's SIGTERM to the process group ends the command the usual way, with the
    command's own handler running first (a training script saving its checkpoint)."""
    script = ("import signal, sys, time\n"
              "signal.signal(signal.SIGTERM, lambda *a: (open('saved', 'w').write('yes'), sys.exit(3)))\n"
              "print('ready', flush=True)\n"
              "time.sleep(60)\n")
    sandbox = Sandbox(True)
    policy = Policy(cwd=tmp_path, writable=(tmp_path,))
    process = subprocess.Popen(sandbox.wrap([sys.executable, "-c", script], policy),
                               stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    os.killpg(process.pid, signal.SIGTERM)
    assert process.wait(timeout=60) == 3
    process.stdout.close()
    assert (tmp_path / "saved").read_text() == "yes"
    # A command with no handler of its own ends by the signal, and its caller reads it as such.
    # (Signalled once it runs: a signal sent while bubblewrap is still setting up reaches only
    # the processes that ignore it; a job's stop then ends it with SIGKILL after its grace.)
    plain = subprocess.Popen(sandbox.wrap(["sh", "-c", "echo ready; exec sleep 60"], policy),
                             stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert plain.stdout is not None and plain.stdout.readline() == "ready\n"
        os.killpg(plain.pid, signal.SIGTERM)
        assert exit_status(plain.wait(timeout=60)) == -signal.SIGTERM
    finally:
        if plain.poll() is None:
            os.killpg(plain.pid, signal.SIGKILL)
        plain.wait()
        plain.stdout.close()


def test_limits_end_the_process_with_a_reason(tmp_path):
    limits = Limits(memory_mb=256, cpu_seconds=1)
    sandbox = Sandbox(True, limits=limits)
    policy = sandbox.for_user_code(tmp_path, writable=(tmp_path,))
    hog = subprocess.run(sandbox.wrap([sys.executable, "-c", "x = bytearray(512 << 20)"], policy),
                         capture_output=True, text=True, timeout=60)
    assert limit_reason(hog.returncode, hog.stderr, limits) == "killed: memory limit 256 MiB"
    spin = subprocess.run(sandbox.wrap([sys.executable, "-c", "while True: pass"], policy),
                          capture_output=True, text=True, timeout=60)
    code = exit_status(spin.returncode)
    assert limit_reason(code, spin.stderr, limits) == "killed: CPU time limit 1 s"
    assert limit_reason(1, "Traceback: ValueError", limits) is None


def test_off_runs_the_command_itself_and_unavailable_refuses(tmp_path, monkeypatch):
    assert Sandbox(False).wrap(["true"], Policy(cwd=tmp_path)) == ["true"]
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap to be found
    from server.sandbox import service

    service.probe.cache_clear()
    try:
        broken = Sandbox(True)
    finally:
        service.probe.cache_clear()
    assert broken.state == "unavailable" and "not installed" in (broken.reason or "")
    with pytest.raises(Unavailable) as refused:
        broken.wrap(["true"], Policy(cwd=tmp_path))
    assert refused.value.code == "sandbox_unavailable" and "MNNWB_SANDBOX=off" in refused.value.detail


def test_a_projects_virtual_environment_runs_with_the_python_it_was_made_from(tmp_path):
    """A project's ``.venv`` links to the installation it was made from, wherever that is."""
    data = tmp_path / "data"
    project = data / "projects" / "a"
    project.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")],
                   check=True)
    sandbox = Sandbox(True, hidden=(data,))
    interpreter = str(project / ".venv" / "bin" / "python")
    policy = sandbox.for_user_code(project, writable=(project,), interpreter=interpreter)
    home = Path(sys.base_prefix).resolve()
    assert home in policy.readable
    done = subprocess.run(sandbox.wrap([interpreter, "-c", "import sys; print(sys.prefix)"],
                                       policy), capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == str(project / ".venv"), done.stderr
