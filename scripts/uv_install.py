"""``uv pip install`` into the venv this runs in, from the same places pip is configured to use.

``make setup`` installs with uv (much faster than pip), but a machine's pip configuration (its
``pip.conf`` files and ``PIP_*`` variables: index, extra indexes, local wheel folders,
constraints, certificates, timeout) is what says where packages come from. This reads it with
``pip config list`` and hands the same to uv, so both install from the same sources:

    .venv/bin/python scripts/uv_install.py -e '.[dev]'
"""

import os
import shlex
import subprocess
import sys
from pathlib import Path

# pip's option → uv's, for options that take a list of values separated by whitespace.
LIST_OPTIONS = {"extra-index-url": "--extra-index-url", "find-links": "--find-links",
                "constraint": "--constraint"}


def pip_config() -> dict[str, str]:
    """pip's effective settings: later scopes (user, site, environment) override earlier ones."""
    out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True,
                         text=True, check=True).stdout
    scopes = {"global": 0, "user": 1, "site": 2, ":env:": 3}
    ranked: list[tuple[int, str, str]] = []
    for line in out.splitlines():
        name, _, value = line.partition("=")
        scope, _, key = name.rpartition(".")
        if scope.split(".")[0] in ("global", "install") or scope in scopes:
            ranked.append((scopes.get(scope.split(".")[0], 3), key, value.strip().strip("'\"")))
    return {key: value for _, key, value in sorted(ranked, key=lambda item: item[0])}


def usable(location: str) -> bool:
    """pip skips a local index or wheel folder that is not there (with a warning); so does this."""
    if "://" not in location:
        return Path(location).exists()
    return not location.startswith("file://") or Path(location.removeprefix("file://")).exists()


def uv_arguments(config: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """uv's options and environment for pip's settings."""
    args: list[str] = []
    env: dict[str, str] = {}
    if "index-url" in config:
        args += ["--index-url", config["index-url"]]
    if config.get("no-index", "").lower() in ("1", "true", "yes", "on"):
        args.append("--no-index")
    for key, flag in LIST_OPTIONS.items():
        for value in shlex.split(config.get(key, "")):
            if key == "constraint" or usable(value):
                args += [flag, value]
    if any(flag == "--extra-index-url" for flag in args):
        args += ["--index-strategy", "unsafe-best-match"]  # pip's way: the best version anywhere
    if "cert" in config:
        env["SSL_CERT_FILE"] = config["cert"]
    if "default-timeout" in config or "timeout" in config:
        env["UV_HTTP_TIMEOUT"] = config.get("default-timeout") or config["timeout"]
    return args, env


def main(argv: list[str]) -> int:
    uv = Path(sys.executable).with_name("uv")
    args, env = uv_arguments(pip_config())
    command = [str(uv), "pip", "install", "--python", sys.executable, *args, *argv]
    return subprocess.run(command, env={**os.environ, **env}, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
