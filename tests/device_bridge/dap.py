"""The browser's side of DAP in tests: requests and events through the hub to a real agent."""

from itertools import count
from typing import Any

from device_bridge import protocol as p
from tests.device_bridge.harness import HubServer
from tests.waiting import wait_until


class DapClient:
    """The browser's side of DAP, speaking through the hub."""

    def __init__(self, server: HubServer, project: str, sid: str) -> None:
        self.server, self.project, self.sid = server, project, sid
        self._seq = count(1)
        self._seen = 0

    def send(self, command: str, **arguments: Any) -> int:
        seq = next(self._seq)
        msg = {"seq": seq, "type": "request", "command": command, "arguments": arguments}
        self.server.call(self.server.hub.send(self.project, p.Dap(sid=self.sid, msg=msg)))
        return seq

    def _wait(self, match, timeout: float = 30.0) -> dict:
        return self.server.recorder.wait(
            lambda e: e.type == "dap" and e.data["sid"] == self.sid and match(e.data["msg"]),
            timeout,
        ).data["msg"]

    def request(self, command: str, **arguments: Any) -> dict:
        seq = self.send(command, **arguments)
        response = self._wait(lambda m: m["type"] == "response" and m["request_seq"] == seq)
        assert response["success"], response
        return response.get("body", {})

    def event(self, name: str, nth: int = 1) -> dict:
        def found() -> list[dict]:
            return [
                e.data["msg"]
                for e in self.server.recorder.select(
                    lambda e: (
                        e.type == "dap" and e.data["sid"] == self.sid and e.data["msg"].get("event") == name
                    )
                )
            ]

        return wait_until(lambda: len(found()) >= nth and found()[nth - 1], 30, name)
