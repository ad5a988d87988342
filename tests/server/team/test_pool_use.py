"""A request holds a pooled database connection only around its database work: more requests
than the pool has connections can be inside their routes at once (here each blocked saving over
a named pipe, as a slow disk or a slow ``git status`` would block them), and all succeed."""

import errno
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sqlalchemy.pool import QueuePool
from sqlmodel import Session

from server.api.services import services_of
from server.projects.models import Project
from tests.server.team.conftest import Team
from tests.waiting import wait_until


def _reader_waiting(pipe: Path, writers: dict[Path, int]) -> bool:
    """Whether a request is reading ``pipe`` now (a non-blocking open for writing succeeds only
    then); the writing end is kept, so the reader stays blocked until it is closed."""
    if pipe not in writers:
        try:
            writers[pipe] = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            return False
    return True


def _saver(team: Team, pid: str, name: str) -> Callable[[], int]:
    def save() -> int:
        response = team.client.put(f"/api/projects/{pid}/files/content", params={"path": name},
                                   json={"content": "x = 1\n"}, headers=team.auth("editor"))
        return response.status_code
    return save


def test_more_slow_requests_than_pooled_connections_all_run_at_once(team: Team):
    engine = services_of(team.client.app).engine
    assert isinstance(engine.pool, QueuePool)
    capacity = engine.pool.size() + engine.pool._max_overflow  # the most it hands out at once
    pid = team.new_project()
    with Session(engine) as session:
        folder = Path(session.get(Project, pid).path)  # type: ignore[union-attr]
    pipes = [folder / f"slow{n}.py" for n in range(capacity + 3)]
    for pipe in pipes:
        os.mkfifo(pipe)
    writers: dict[Path, int] = {}
    with ThreadPoolExecutor(len(pipes)) as pool:
        saves = [pool.submit(_saver(team, pid, pipe.name)) for pipe in pipes]
        try:
            wait_until(lambda: all(_reader_waiting(p, writers) for p in pipes), timeout=60,
                       what=f"{len(pipes)} saves inside their route at once")
            assert engine.pool.checkedout() < len(pipes)
        finally:
            for fd in writers.values():
                os.close(fd)
        assert [save.result() for save in saves] == [200] * len(pipes)
    assert all(pipe.is_file() for pipe in pipes)
