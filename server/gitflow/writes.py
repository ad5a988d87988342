"""Git writes made through the API: each runs off the event loop, then every tab of the project
is told (``git``/``changed``, with the ``client`` that made it); fetch, pull and push also stream
``progress`` (docs/git.md)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from anyio import to_thread

from server.core.events import EventHub
from server.files.events import GitChanged
from server.files.watch import FileWatchers
from server.gitflow.events import GitProgress
from server.gitflow.transport import throttled


@dataclass
class GitWrites:
    """Runs a Git write off the event loop, then tells every tab of the project; the file
    watcher is told too, so it does not announce the same change again as an outside one."""

    hub: EventHub
    watchers: FileWatchers
    client: str | None

    async def run(self, project: Any, op: str, fn: Callable[..., Any], *args: Any) -> Any:
        with self.watchers.git_write(project.id, project.path):
            result = await to_thread.run_sync(fn, project.path, *args)
        self.hub.emit(project.id, GitChanged(op=op, client=self.client))
        return result

    def progress(self, project: Any, op: str) -> Callable[[str], None]:
        def publish(text: str) -> None:
            self.hub.emit(project.id, GitProgress(op=op, text=text))

        return throttled(publish)
