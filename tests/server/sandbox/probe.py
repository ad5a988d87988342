"""Run inside the sandbox as a hostile member's code would: tries each thing it must not do and
writes what happened as JSON (to stdout, and to OUT when given).

    python probe.py DATA_DIR OTHER_PROJECT PORT SERVER_PID [OUT]
"""

import json
import os
import socket
import sys

data, other, port, server_pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
seen: dict[str, object] = {}


def attempt(name: str, action) -> None:
    try:
        action()
        seen[name] = "allowed"
    except OSError as exc:
        seen[name] = type(exc).__name__


def write(path: str) -> None:
    with open(path, "w") as handle:
        handle.write("planted")


attempt("read_other_project", lambda: open(os.path.join(other, "train.py")).read())
attempt("list_other_project", lambda: os.listdir(other))
attempt("read_secrets_key", lambda: open(os.path.join(data, "secrets.key"), "rb").read())
attempt("read_database", lambda: open(os.path.join(data, "workbench.db"), "rb").read())
attempt("write_own_project", lambda: write("written-by-probe.txt"))
attempt("write_other_project", lambda: write(os.path.join(other, "planted.txt")))
attempt("write_system", lambda: write("/usr/planted.txt"))
attempt("write_root", lambda: write("/planted.txt"))
attempt("connect_server", lambda: socket.create_connection(("127.0.0.1", port), timeout=5).close())
seen["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
seen["server_pid_visible"] = os.path.exists(f"/proc/{server_pid}/cmdline")
seen["env"] = sorted(k for k in os.environ if k.startswith("MNNWB_") and "DATABASE" in k)
seen["home"] = os.environ.get("HOME")
with open("/proc/net/route") as routes:
    seen["default_route"] = any(line.split()[1] == "00000000" for line in list(routes)[1:])
text = json.dumps(seen)
print(text)
if len(sys.argv) > 5:
    with open(sys.argv[5], "w") as out:
        out.write(text)
