"""The chat and embedding API: resolve the model in the project, run it here or on a device,
stream the tokens.

A chat on this machine costs one hand-over to a worker thread, the check of the caller's role
(``runnable_project``, before the body is looked at); the request is then written to the model's
process, and its tokens published as they are read, on the event loop (``server/llm/chat.py``).
The time to the first token on the tab socket is the model's own plus a few wake-ups
(docs/performance.md).
"""

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy.engine import Engine
from sqlmodel import Session

from device_bridge import protocol as p
from server.core.events import EventHub
from server.llm.chat import ChatManager
from server.llm.device import DeviceLlm
from server.llm.events import ChatDone, ChatToken
from server.llm.prepare import exported_folder
from server.llm.schemas import ChatAnswer, ChatRequest, ChatStopped, EmbedAnswer, EmbedRequest
from server.projects import service as projects
from server.projects.models import Project
from server.users.service import user_for_principal


@dataclass(frozen=True)
class LlmContext:
    engine: Engine
    chats: ChatManager
    devices: DeviceLlm
    hub: EventHub
    principal: str | None


def runnable_project(ctx: LlmContext, pid: str) -> Project:
    """The project, if the caller may run code in it (the same check as other run routes)."""
    with Session(ctx.engine) as session:
        user = user_for_principal(session, ctx.principal)
        return projects.get_project(session, user, pid, "run")


def _message(request: ChatRequest) -> dict[str, Any]:
    return {"messages": [m.model_dump() for m in request.messages],
            "max_new_tokens": request.max_new_tokens, "sampler": request.sampler.model_dump()}


def _publisher(ctx: LlmContext, pid: str, request: ChatRequest) -> Any:
    chat_id = request.chat_id or ""

    def publish(piece: str) -> None:
        ctx.hub.emit(pid, ChatToken(chat_id=chat_id, text=piece))

    return publish if request.stream else None


def _answered(ctx: LlmContext, pid: str, request: ChatRequest, summary: dict[str, Any]) -> ChatAnswer:
    answer = ChatAnswer.model_validate(summary)
    if request.stream:
        ctx.hub.emit(pid, ChatDone(chat_id=request.chat_id or "", **answer.model_dump()))
    return answer


def _key(pid: str, chat_id: str | None) -> str:
    return f"{pid}/{chat_id}" if chat_id else ""


async def chat(ctx: LlmContext, project: Project, request: ChatRequest) -> ChatAnswer:
    pid = project.id
    folder = exported_folder(project.path, request.model)
    if request.device_id is None:
        summary = await ctx.chats.chat(folder, request.threads, _message(request),
                                       on_token=_publisher(ctx, pid, request),
                                       chat_id=_key(pid, request.chat_id))
        return _answered(ctx, pid, request, summary)
    session, rel = await ctx.devices.push(pid, Path(project.path), request.device_id, folder)
    message = p.LlmChat(sid=session.sid, rid=secrets.token_hex(8), model=rel, threads=request.threads,
                        **_message(request))
    summary = await ctx.devices.call(session, message, _key(pid, request.chat_id),
                                     on_token=_publisher(ctx, pid, request))
    return _answered(ctx, pid, request, summary)


async def stop(ctx: LlmContext, project: Project, chat_id: str) -> ChatStopped:
    key = _key(project.id, chat_id)
    return ChatStopped(stopped=ctx.chats.stop(key) or await ctx.devices.stop(key))


def embed(manager: ChatManager, project: Project, request: EmbedRequest) -> EmbedAnswer:
    folder = exported_folder(project.path, request.model)
    vectors = np.asarray(manager.run(folder, request.threads, {"embed": request.texts},
                                     embedding=True)["vectors"], dtype=np.float64)
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return EmbedAnswer(dimensions=int(vectors.shape[1]), similarity=np.round(unit @ unit.T, 6).tolist())
