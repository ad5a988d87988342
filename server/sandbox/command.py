"""The bubblewrap command line for a policy.

The sandbox's root is empty but for: the system's programs and libraries (read-only), a few
named files of ``/etc``, the server's Python (read-only, for tools that run its code), the
policy's folders, a private ``/tmp`` and home, fresh ``/dev`` and ``/proc``. Every namespace is
new; the process keeps no capability. The data directory is never mounted, and is masked where
it lies inside a folder that is.
"""

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from server.sandbox.policy import Limits, Policy

HOME = "/home/sandbox"
CPU_GRACE_SECONDS = 5
# Of /etc, only what programs need to run, resolve names and verify certificates.
ETC = ("passwd", "group", "hosts", "host.conf", "nsswitch.conf", "resolv.conf", "gai.conf",
       "services", "protocols", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime",
       "timezone", "ssl", "ca-certificates", "ca-certificates.conf", "alternatives", "mime.types",
       "bash.bashrc", "profile", "profile.d", "inputrc", "terminfo", "environment", "gitconfig",
       "python3", "python3.11", "fonts", "magic", "magic.mime", "os-release", "debian_version",
       "machine-id")
SYSTEM_LINKS = ("bin", "lib", "lib32", "lib64", "libx32", "sbin")
# The stop signals a caller sends the process group reach the sandboxed command directly;
# bubblewrap must outlive them (it would take the command down at once), the command not.
STOP_SIGNALS = "TERM,INT,HUP,QUIT"
OUTBOUND = Path(__file__).resolve().parent / "outbound.py"
REPO_ROOT = Path(__file__).resolve().parents[2]


def _bind(flag: str, path: Path) -> list[str]:
    return [flag, str(path), str(path)]


def system_binds() -> list[str]:
    """``/usr`` and the merged-/usr links (or folders) beside it, and the chosen ``/etc``."""
    args = _bind("--ro-bind", Path("/usr"))
    for name in SYSTEM_LINKS:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += _bind("--ro-bind", path)
    for name in ETC:
        if os.path.lexists(f"/etc/{name}"):
            args += _bind("--ro-bind", Path("/etc") / name)
    return args


def python_paths() -> list[Path]:
    """What the server's interpreter and its code live in, outside the system folders."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), REPO_ROOT}
    return sorted(p for p in paths if not p.is_relative_to("/usr"))


def limit_prefix(limits: Limits) -> list[str]:
    """``prlimit`` inside the sandbox sets the limits on the command (``ulimit`` semantics)."""
    flags = []
    if limits.memory_mb is not None:
        flags.append(f"--as={limits.memory_mb * 1024 * 1024}")
    if limits.pids is not None:
        flags.append(f"--nproc={limits.pids}")
    if limits.cpu_seconds is not None:
        # the soft limit sends SIGXCPU (the reason, ``limits.py``); the hard one kills if ignored
        flags.append(f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + CPU_GRACE_SECONDS}")
    return ["prlimit", *flags, "--"] if flags else []


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _mask(hidden: Iterable[Path], mounted: Iterable[Path]) -> list[str]:
    """An empty tmpfs over each hidden folder that lies inside a mounted one."""
    args: list[str] = []
    for secret in hidden:
        if _inside(secret, mounted):
            args += ["--tmpfs", str(secret)]
    return args


def bwrap_argv(argv: list[str], policy: Policy, hidden: tuple[Path, ...],
               unset_env: Iterable[str]) -> list[str]:
    """The full command that runs ``argv`` under ``policy``; ``hidden`` is never visible."""
    secrets = [p.resolve() for p in hidden]
    readable = [*python_paths(), *(p.resolve() for p in policy.readable)]
    writable = [p.resolve() for p in policy.writable]
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
            "--hostname", "sandbox", *system_binds(),
            "--tmpfs", "/tmp",  # noqa: S108 (the sandbox's own, empty /tmp)
            "--tmpfs", HOME, "--dev", "/dev", "--proc", "/proc"]
    if Path("/sys/devices/system/cpu").is_dir():  # core counts, read by thread pools
        args += _bind("--ro-bind", Path("/sys/devices/system/cpu"))
    for path in readable:
        args += _bind("--ro-bind-try", path)
    args += _mask(secrets, readable)
    for path in writable:
        args += _bind("--bind", path)
    # Nothing else of the root is writable (what is written there would be lost anyway).
    args += ["--remount-ro", "/", "--setenv", "HOME", HOME, "--unsetenv", "TMPDIR"]
    for name in unset_env:
        args += ["--unsetenv", name]
    args += ["--chdir", str(policy.cwd), "--", "env", f"--default-signal={STOP_SIGNALS}",
             *limit_prefix(policy.limits), *argv]
    if policy.network == "outbound":
        args = [sys.executable, "-I", "-S", str(OUTBOUND), *args]
    return ["env", f"--ignore-signal={STOP_SIGNALS}", *args]
