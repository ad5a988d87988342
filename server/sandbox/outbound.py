"""Start a sandbox with outbound network: ``python -I -S outbound.py BWRAP-ARGV...``.

bubblewrap gives the sandbox a network namespace of its own (``--unshare-net``), which has only
a loopback; slirp4netns then attaches a user-mode network to it from outside, the way rootless
containers get theirs. With ``--disable-host-loopback`` the sandbox reaches the internet but
never this machine's loopback, so not the server. The sandboxed command waits (``--block-fd``)
until the network is up. This process stays as the sandbox's parent and exits with the
sandbox's status; like bubblewrap, it ignores the stop signals its caller sends the whole process
group (``command.py``), which reach the sandboxed command directly. Standard library only: it
runs with ``-I -S``.
"""

import json
import os
import signal
import subprocess
import sys
import time

LOOPBACK_WAIT_SECONDS = 5.0


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


def _start_network(pid: int, exit_fd: int) -> subprocess.Popen:
    ready_r, ready_w = os.pipe()
    slirp = subprocess.Popen(
        ["slirp4netns", "--configure", "--disable-host-loopback", "--exit-fd", str(exit_fd),
         "--ready-fd", str(ready_w), str(pid), "tap0"],
        pass_fds=(exit_fd, ready_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    os.close(ready_w)
    os.read(ready_r, 1)  # empty when slirp4netns failed: the sandbox then has no network
    os.close(ready_r)
    return slirp


def main(bwrap_argv: list[str]) -> int:
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    exit_r, exit_w = os.pipe()
    argv = [bwrap_argv[0], "--info-fd", str(info_w), "--block-fd", str(block_r), *bwrap_argv[1:]]
    sandbox = subprocess.Popen(argv, pass_fds=(info_w, block_r))
    os.close(info_w)
    os.close(block_r)
    info = b""
    while chunk := os.read(info_r, 65536):  # bubblewrap closes it once it is all written
        info += chunk
    os.close(info_r)
    slirp = None
    if info:
        pid = json.loads(info)["child-pid"]
        _wait_for_loopback(pid)
        slirp = _start_network(pid, exit_r)
    os.close(exit_r)
    os.write(block_w, b"1")
    os.close(block_w)
    code = sandbox.wait()
    os.close(exit_w)  # slirp4netns ends with it
    if slirp is not None:
        slirp.wait()
    if code < 0:  # end the same way, so the caller sees the signal
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
