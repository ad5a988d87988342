"""``mnnwb`` with its database pool traced: where each pooled connection was checked out, and
for how long it was held (SQLAlchemy pool events ``checkout`` / ``checkin``).

    python bench/pool_trace.py REPORT serve --team ...

Runs the server as ``mnnwb`` does, writing to REPORT every 5 s: the connections checked out
now, the most at once, and per checkout site (the server's own frames of the stack) the count,
the total and the longest hold. ``bench/team_load.py --pool-trace`` starts its server this way.
"""

import sys
import threading
import time
import traceback
from collections import defaultdict
from pathlib import Path
from typing import Any

from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import server.core.db as db  # noqa: E402

held: dict[int, tuple[float, str]] = {}
sites: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # count, total s, max s
most = [0, 0]  # most at once, checkouts
lock = threading.Lock()


def _site() -> str:
    frames = [f for f in traceback.extract_stack()[:-3] if "/server/" in f.filename
              and "/site-packages/" not in f.filename]
    return " < ".join(f"{f.filename.split('/server/')[-1]}:{f.lineno} {f.name}"
                      for f in reversed(frames[-4:])) or "(outside the server)"


def _checkout(_dbapi: Any, record: Any, _proxy: Any) -> None:
    with lock:
        held[id(record)] = (time.monotonic(), _site())
        most[0] = max(most[0], len(held))
        most[1] += 1


def _checkin(_dbapi: Any, record: Any) -> None:
    with lock:
        found = held.pop(id(record), None)
    if found:
        seconds = time.monotonic() - found[0]
        site = sites[found[1]]
        site[0] += 1
        site[1] += seconds
        site[2] = max(site[2], seconds)


def _report(path: Path) -> None:
    while True:
        time.sleep(5)
        now = time.monotonic()
        with lock:
            current = sorted(((now - at, site) for at, site in held.values()), reverse=True)
            rows = sorted(sites.items(), key=lambda kv: -kv[1][1])[:12]
        lines = [f"checked out now {len(current)}, most at once {most[0]}, checkouts {most[1]}"]
        lines += [f"  held now {s:7.2f} s  {site}" for s, site in current[:8]]
        lines += [f"  n={n:6.0f} total {t:8.2f} s max {m:6.2f} s  {site}" for site, (n, t, m) in rows]
        path.write_text("\n".join(lines) + "\n")


def traced(url: str) -> Any:
    engine = plain(url)
    event.listen(engine.pool, "checkout", _checkout)
    event.listen(engine.pool, "checkin", _checkin)
    return engine


plain = db.make_engine
db.make_engine = traced  # type: ignore[assignment]

if __name__ == "__main__":
    report = Path(sys.argv.pop(1))
    threading.Thread(target=_report, args=(report,), daemon=True).start()
    from server.cli import main
    sys.argv[0] = "mnnwb"
    main()
