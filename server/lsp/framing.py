"""The language server protocol's base framing: ``Content-Length`` headers, then a JSON body."""

import asyncio

MAX_BODY = 64 * 1024 * 1024


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


async def read_message(reader: asyncio.StreamReader) -> bytes | None:
    """The next message body, or ``None`` at the end of the stream."""
    length = None
    while True:
        line = await reader.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    if length is None or length > MAX_BODY:
        raise ValueError("a message without a usable Content-Length")
    return await reader.readexactly(length)
