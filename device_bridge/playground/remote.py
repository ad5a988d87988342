"""``mnnwb playground run PATH --device ID --server URL --token-file FILE``: the run on a paired
device, through a workbench server. The project's session on the device is opened (REST), the
project is deployed and run there as the Playground panel would (the tab websocket's
``sync.start`` and ``run.start``, docs/protocol.md §9), and the run's output comes back as a run
here would print it. SIGTERM or Ctrl-C stops the run on the device (its close callback runs)."""

import asyncio
import json
import os
import signal
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

HTTP_TIMEOUT_SECONDS = 60
STOPPED_CODE = 143
Output = Callable[[str, str], None]  # (stream, text)


class RemoteError(Exception):
    """The server could not be asked, refused, or the device could not run the project."""


@dataclass(frozen=True)
class Server:
    url: str
    token: str

    @classmethod
    def from_args(cls, url: str, token_file: str | None) -> "Server":
        if not url.startswith(("http://", "https://")):
            raise RemoteError(f"--server takes an http:// or https:// URL, not {url!r}")
        try:
            token = Path(token_file).read_text().strip() if token_file else ""
        except OSError as exc:
            raise RemoteError(f"cannot read the token file: {exc}") from None
        return cls(url.rstrip("/"), token)

    def call(self, method: str, path: str) -> Any:
        request = urllib.request.Request(self.url + path, method=method)  # noqa: S310 - scheme checked
        request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_SECONDS) as response:  # noqa: S310
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            detail = json.loads(exc.read() or b"{}").get("detail", exc.reason)
            raise RemoteError(f"{method} {path}: {exc.code} {detail}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise RemoteError(f"cannot reach {self.url}: {exc}") from None

    def socket_url(self, project_id: str) -> str:
        return "ws" + self.url[len("http"):] + f"/api/projects/{project_id}/ws"


def project_id(server: Server, folder: str, given: str | None) -> str:
    """``given``, else the server's project whose folder is ``folder``."""
    if given:
        return given
    wanted = os.path.realpath(folder)
    for project in server.call("GET", "/api/projects"):
        if os.path.realpath(project["path"]) == wanted:
            return str(project["id"])
    raise RemoteError(f"no project of the server has the folder {wanted}; name it with --project")


class DeviceRun:
    """One run over the tab websocket: deploy, start, relay the output, stop on a signal."""

    def __init__(self, ws: ClientConnection, sid: str, output: Output) -> None:
        self.ws = ws
        self.sid = sid
        self.output = output
        self.stopping = False

    async def send(self, channel: str, type_: str, data: dict[str, Any]) -> None:
        await self.ws.send(json.dumps({"v": 1, "seq": 0, "channel": channel, "type": type_, "data": data}))

    async def event(self) -> tuple[str, dict[str, Any]]:
        """The next event of this session (answering pings meanwhile); its errors raise."""
        while True:
            envelope = json.loads(await self.ws.recv())
            kind, data = f"{envelope['channel']}/{envelope['type']}", envelope["data"]
            if kind == "sys/ping":
                await self.send("sys", "pong", {})
            elif data.get("sid") != self.sid:
                continue
            elif kind == "devices/error" and not (self.stopping and data.get("ref") == "run.stop"):
                raise RemoteError(f"the device: {data['message']} ({data['code']})")
            elif kind == "devices/session.state" and data["state"] != "open":
                reason = data.get("reason") or "closed"
                raise RemoteError(f"the device's session is {data['state']}: {reason}")
            else:
                return kind, data

    async def deploy(self) -> None:
        await self.send("devices", "sync.start", {"sid": self.sid})
        while (found := await self.event())[0] != "devices/sync.done":
            pass
        if found[1]["failed"]:
            raise RemoteError(f"the deploy failed for {', '.join(found[1]['failed'])}")

    async def run(self, argv: list[str]) -> int:
        await self.send("log", "run.start", {"sid": self.sid, "argv": argv})
        while True:
            kind, data = await self.event()
            if kind == "log/log":
                self.output(data["stream"], data["text"])
            elif kind == "log/run.exit":
                return int(data["code"]) if data.get("code") is not None else 128 + int(data["signal"])

    async def stop(self) -> None:
        self.stopping = True
        await self.send("log", "run.stop", {"sid": self.sid})


async def run_on_device(server: Server, pid: str, device_id: str, argv: list[str],
                        output: Output) -> int:
    headers = {"Authorization": f"Bearer {server.token}"}
    try:
        async with connect(server.socket_url(pid), additional_headers=headers) as ws:
            await ws.recv()  # sys/hello: the socket is subscribed before the session opens
            opened = await asyncio.to_thread(
                server.call, "POST", f"/api/projects/{pid}/devices/{device_id}/sessions")
            device = DeviceRun(ws, opened["sid"], output)
            await device.deploy()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, lambda: asyncio.ensure_future(device.stop()))
            try:
                return await device.run(argv)
            finally:
                for signum in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(signum)
    except InvalidStatus as exc:
        raise RemoteError(f"the server refused the websocket: {exc.response.status_code}") from None
    except (ConnectionClosed, OSError) as exc:
        raise RemoteError(f"the connection to {server.url} ended: {exc}") from None
