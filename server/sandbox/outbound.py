"""Start a sandbox with outbound network: ``python -I -S outbound.py BWRAP-ARGV...``.

bubblewrap gives the sandbox a network namespace of its own (``--unshare-net``), which has only
a loopback; slirp4netns then attaches a user-mode network to it from outside, the way rootless
containers get theirs. With ``--disable-host-loopback`` the sandbox reaches the internet but
never this machine's loopback, so not the server. The sandboxed command waits (``--block-fd``)
until the network is up. This process stays as the sandbox's parent and exits with the
sandbox's status; like bubblewrap, it ignores the stop signals its caller sends the whole process
group (``command.py``), which reach the sandboxed command directly.

It runs for every start of a job or a terminal, so it imports nothing but ``os`` and ``time``
(``subprocess`` and ``json`` would double its start-up).
"""

import os
import sys
import time

LOOPBACK_WAIT_SECONDS = 5.0


def _spawn(argv: list[str], keep: tuple[int, ...], quiet: bool = False) -> int:
    for fd in keep:
        os.set_inheritable(fd, True)
    actions = []
    if quiet:
        actions = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    return os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)


def _wait_for_loopback(pid: int) -> None:
    """bubblewrap sets up the sandbox's loopback after it reports the pid; slirp4netns changing
    the same namespace meanwhile makes that fail. Its address shows once it is done."""
    deadline = time.monotonic() + LOOPBACK_WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/net/fib_trie", "rb") as table:
                if b"127.0.0.1" in table.read():
                    return
        except OSError:  # the sandbox already ended
            return
        time.sleep(0.0005)


def _start_network(pid: int, exit_fd: int) -> int:
    """slirp4netns for the sandbox ``pid``, once it says it is ready; it ends when ``exit_fd``
    closes."""
    ready_r, ready_w = os.pipe()
    slirp = _spawn(["slirp4netns", "--configure", "--disable-host-loopback", "--exit-fd",
                    str(exit_fd), "--ready-fd", str(ready_w), str(pid), "tap0"],
                   (exit_fd, ready_w), quiet=True)
    os.close(ready_w)
    os.read(ready_r, 1)  # empty when slirp4netns failed: the sandbox then has no network
    os.close(ready_r)
    return slirp


def _child_pid(info: bytes) -> int | None:
    """``child-pid`` of bubblewrap's JSON info: ``{"child-pid": 123, ...}``."""
    _, found, rest = info.partition(b'"child-pid"')
    digits = rest.lstrip(b" \t\n:").split(b",")[0].split(b"}")[0].strip()
    return int(digits) if found and digits.isdigit() else None


def _read_all(fd: int) -> bytes:
    data = b""
    while chunk := os.read(fd, 65536):  # bubblewrap closes it once it is all written
        data += chunk
    os.close(fd)
    return data


def main(bwrap_argv: list[str]) -> int:
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    exit_r, exit_w = os.pipe()
    argv = [bwrap_argv[0], "--info-fd", str(info_w), "--block-fd", str(block_r), *bwrap_argv[1:]]
    sandbox = _spawn(argv, (info_w, block_r))
    os.close(info_w)
    os.close(block_r)
    pid = _child_pid(_read_all(info_r))
    slirp = None
    if pid is not None:
        _wait_for_loopback(pid)
        slirp = _start_network(pid, exit_r)
    os.close(exit_r)
    os.write(block_w, b"1")
    os.close(block_w)
    code = os.waitstatus_to_exitcode(os.waitpid(sandbox, 0)[1])
    os.close(exit_w)  # slirp4netns ends with it
    if slirp is not None:
        os.waitpid(slirp, 0)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
