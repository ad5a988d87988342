"""``GET /bridge/v1/agent.pyz``: the device agent as a zipapp, for a paired or pairing device.

Like the device websocket it sits outside ``/api`` and authenticates by itself: the bearer is a
pairing code that is still valid or a device token, never a user's credential.
"""

from fastapi import APIRouter, Request, Response

from device_bridge.agent.update import AGENT_PATH, SHA_HEADER
from server.api.deps import DevicesDep, SessionDep

router = APIRouter()


@router.get(AGENT_PATH, response_class=Response,
            responses={200: {"content": {"application/zip": {}}}})
def download_agent(request: Request, session: SessionDep, bridge: DevicesDep) -> Response:
    auth = request.headers.get("authorization", "")
    token = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
    build = bridge.agent_download(session, token)
    return Response(build.data, media_type="application/zip",
                    headers={SHA_HEADER: build.sha256, "Cache-Control": "no-store",
                             "Content-Disposition": 'attachment; filename="agent.pyz"'})
