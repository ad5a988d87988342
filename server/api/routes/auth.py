"""Team-mode sign-in: login, logout (here or everywhere), personal API tokens, users, audit."""

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel

from server.api.deps import (
    AccessChanges,
    AdminUser,
    ClientAddress,
    CredentialDep,
    CurrentUser,
    LoginThrottleDep,
    SessionDep,
    SettingsDep,
    TeamUser,
)
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.core.security import session_cookie
from server.users import audit, sessions
from server.users.models import (
    AuditPublic,
    LoginBody,
    TokenCreate,
    TokenCreated,
    TokenPublic,
    UserInfo,
    UserPublic,
)
from server.users.service import list_users

router = APIRouter(prefix="/api", tags=["auth"])


class LogoutBody(BaseModel):
    everywhere: bool = False


def _secure(request: Request, settings: SettingsDep) -> bool:
    return settings.secure_cookies or request.url.scheme == "https"


@router.post("/auth/login")
def login(body: LoginBody, request: Request, response: Response, session: SessionDep,
          settings: SettingsDep, address: ClientAddress, throttle: LoginThrottleDep) -> UserPublic:
    if not settings.team:
        raise Invalid("password sign-in is for team mode", code=ErrorCode.LOCAL_MODE)
    user, secret = sessions.login(session, throttle, body, address, settings.session_hours)
    max_age = int(settings.session_hours * 3600)
    response.headers["set-cookie"] = session_cookie(secret, _secure(request, settings), max_age)
    response.headers["cache-control"] = "no-store"
    return UserPublic(id=user.id, name=user.name, mode="team", role=user.role)


@router.post("/auth/logout", status_code=204)
def logout(request: Request, session: SessionDep, settings: SettingsDep, user: CurrentUser,
           credential: CredentialDep, address: ClientAddress, notify: AccessChanges,
           body: LogoutBody | None = None) -> Response:
    everywhere = body.everywhere if body else False
    if settings.team:
        session_id = credential.id if credential and credential.kind == "session" else None
        sessions.logout(session, user, session_id, everywhere, address, notify)
    response = Response(status_code=204)
    response.headers["set-cookie"] = session_cookie("", _secure(request, settings), max_age=0)
    return response


@router.get("/auth/tokens")
def list_tokens(session: SessionDep, user: TeamUser) -> list[TokenPublic]:
    return sessions.list_tokens(session, user)


@router.post("/auth/tokens", status_code=201)
def create_token(body: TokenCreate, session: SessionDep, user: TeamUser,
                 address: ClientAddress) -> TokenCreated:
    return sessions.create_token(session, user, body.name, address)


@router.delete("/auth/tokens/{tid}", status_code=204)
def revoke_token(tid: str, session: SessionDep, user: TeamUser, address: ClientAddress,
                 notify: AccessChanges) -> Response:
    sessions.revoke_token(session, user, tid, address, notify)
    return Response(status_code=204)


@router.get("/users")
def users(session: SessionDep, _: TeamUser) -> list[UserInfo]:
    return list_users(session)


@router.get("/audit")
def audit_log(session: SessionDep, _: AdminUser, limit: int = 200) -> list[AuditPublic]:
    return audit.recent(session, min(max(limit, 1), 1000))
