"""MNN-LLM: chat with an exported model, here or on a device; embed texts (export and bench are
tool runs)."""

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from server.api.deps import RunnerProject
from server.api.openapi import errors
from server.llm import service
from server.llm.chat import ChatManager
from server.llm.schemas import ChatAnswer, ChatRequest, ChatStopped, EmbedAnswer, EmbedRequest
from server.llm.service import LlmContext

router = APIRouter(prefix="/api", tags=["llm"])


def get_chats(conn: HTTPConnection) -> ChatManager:
    chats: ChatManager = conn.app.state.chats
    return chats


async def llm_context(conn: HTTPConnection) -> LlmContext:
    """Async and free of other dependencies: a chat's first token waits for no thread but the
    one that checks the caller's role and runs the request (see ``server/llm/service.py``)."""
    state = conn.app.state
    principal = conn.scope.get("state", {}).get("principal")
    return LlmContext(state.engine, state.chats, state.device_llm, state.hub, principal)


ChatsDep = Annotated[ChatManager, Depends(get_chats)]
LlmDep = Annotated[LlmContext, Depends(llm_context)]


@router.post("/projects/{pid}/llm/chat", responses=errors(503))
async def chat(pid: str, body: ChatRequest, ctx: LlmDep) -> ChatAnswer:
    return await service.chat(ctx, pid, body)


@router.post("/projects/{pid}/llm/chat/{chat_id}/stop")
async def stop_chat(pid: str, chat_id: str, ctx: LlmDep) -> ChatStopped:
    return await service.stop(ctx, pid, chat_id)


@router.post("/projects/{pid}/llm/embed", responses=errors(503))
async def embed(body: EmbedRequest, project: RunnerProject, chats: ChatsDep) -> EmbedAnswer:
    return await run_in_threadpool(service.embed, chats, project, body)
