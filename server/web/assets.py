"""The built UI's static files.

Content-hashed files (``assets/``) never change under their name: each is read from disk once
and then answered from memory in one piece, with its build-time ``.gz`` twin when the browser
takes gzip, and cached by the browser for a year. A page load asks for a few dozen of them at
once, so each costs no thread hop, ``stat`` or chunked read after the first. Anything else
(the build's own files outside ``assets/``) is served from disk and revalidated.
"""

import mimetypes
import stat
from pathlib import Path
from typing import Any

from anyio import to_thread
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"


class BundleFiles(StaticFiles):
    """``/static``: hashed assets from memory, the rest from disk with ``no-cache``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._memory: dict[str, bytes] = {}

    def file_response(
        self, full_path: Any, stat_result: Any, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        hashed = "/assets/" in str(full_path)
        response.headers["Cache-Control"] = IMMUTABLE if hashed else "no-cache"
        return response

    async def get_response(self, path: str, scope: Scope) -> Response:
        if not path.startswith("assets/"):
            return await super().get_response(path, scope)
        accepts = dict(scope["headers"]).get(b"accept-encoding", b"")
        headers = {"Cache-Control": IMMUTABLE, "Vary": "Accept-Encoding"}
        body = await self._read(path + ".gz") if b"gzip" in accepts else None
        if body is not None:
            headers["Content-Encoding"] = "gzip"
        else:
            body = await self._read(path)
        if body is None:
            return await super().get_response(path, scope)  # its 404, as for any missing file
        media_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
        return Response(body, media_type=media_type, headers=headers)

    async def _read(self, path: str) -> bytes | None:
        """A file's bytes, from memory after the first read; None when it is not a file."""
        body = self._memory.get(path)
        if body is None:
            body = await to_thread.run_sync(self._read_disk, path)
            if body is not None:
                self._memory[path] = body
        return body

    def _read_disk(self, path: str) -> bytes | None:
        full_path, stat_result = self.lookup_path(path)  # confined to the build folder
        if stat_result is None or not stat.S_ISREG(stat_result.st_mode):
            return None
        return Path(full_path).read_bytes()
