"""A local emulator of Alibaba Cloud PAI-DLC, AIWorkspace and OSS for tests and demos.

The official SDK clients talk to it unchanged: the OpenAPI clients with
``protocol="http", endpoint="127.0.0.1:PORT"`` and the OSS v2 client with
``endpoint="http://127.0.0.1:PORT"`` and path-style addressing. Signatures are checked
(ACS3-HMAC-SHA256, OSS4-HMAC-SHA256), answers and errors use the real shapes, and jobs really
run: the code source is cloned at the job's commit, OSS data sources become local folders that
are written back to the emulated bucket when the pods end, and ``UserCommand`` runs with
``bash -c`` in its own process group. ``JobMaxRunningTimeMinutes`` is accepted, not enforced.
``Emulator.inject_fault`` makes the next call of one action fail (throttling, quota, outages).
"""

from .server import Emulator, SeenRequest

__all__ = ["Emulator", "SeenRequest"]
