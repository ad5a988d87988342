"""The server's long-lived services, typed: one ``Services`` on ``app.state.services``.

``create_app``'s lifespan (``server/app.py``) builds it once; request dependencies
(``server/api/deps.py``), websockets and the HTML shell read it through ``services_of``. This
module is the only one that reads ``app.state``.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy.engine import Engine

from server.checks.device import DeviceBench
from server.core.config import Settings
from server.core.events import Envelope, EventHub
from server.devices.bridge import DeviceBridge
from server.files.watch import FileWatchers
from server.llm.chat import ChatManager
from server.llm.device import DeviceLlm
from server.lsp.manager import LanguageServers
from server.modeltools.service import ToolManager
from server.playground.local import LocalRuns
from server.projects.cloning import CloneJobs
from server.sandbox import Sandbox
from server.terminal.manager import TerminalManager
from server.training.service import JobManager
from server.users.connections import Connections
from server.users.throttle import LoginThrottle

CommandHandler = Callable[[str, Envelope], Awaitable[None]]
"""A tab's command handler for one channel: ``(project_id, envelope)``."""


@dataclass
class Services:
    """Every long-lived service of one server, with its real type."""

    settings: Settings
    token: str
    sandbox: Sandbox
    engine: Engine
    hub: EventHub
    watchers: FileWatchers
    tools: ToolManager
    connections: Connections
    terminals: TerminalManager
    language_servers: LanguageServers
    chats: ChatManager
    devices: DeviceBridge
    playground: LocalRuns
    device_llm: DeviceLlm
    device_bench: DeviceBench
    jobs: JobManager
    clones: CloneJobs
    login_throttle: LoginThrottle
    tab_commands: dict[str, CommandHandler]
    """The tabs' command channels shared by everyone (``devices``, ``dap``, ``log``)."""
    user_tab_commands: dict[str, Callable[[str], CommandHandler]]
    """Channels whose handler is bound to the caller (``playground``: runs counted per person)."""


def services_of(app: Any) -> Services:
    """The app's ``Services`` (``app`` as Starlette hands it: ``conn.app`` or ``scope["app"]``)."""
    return cast(Services, app.state.services)


def store(app: Any, services: Services) -> None:
    """Put ``services`` on the app; the lifespan does this once."""
    app.state.services = services
