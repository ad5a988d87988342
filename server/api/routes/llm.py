"""MNN-LLM: chat with an exported model, here or on a device; embed texts (export and bench are
tool runs)."""

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from server.api.deps import ChatsDep, RunnerProject
from server.api.openapi import errors
from server.api.services import services_of
from server.llm import service
from server.llm.schemas import ChatAnswer, ChatRequest, ChatStopped, EmbedAnswer, EmbedRequest
from server.llm.service import LlmContext
from server.projects.models import Project

router = APIRouter(prefix="/api", tags=["llm"])


async def llm_context(conn: HTTPConnection) -> LlmContext:
    """Async and free of other dependencies, so it costs a chat's first token no thread hop
    (see ``server/llm/service.py``)."""
    services = services_of(conn.app)
    principal = conn.scope.get("state", {}).get("principal")
    return LlmContext(services.engine, services.chats, services.device_llm, services.hub, principal)


LlmDep = Annotated[LlmContext, Depends(llm_context)]


async def chat_project(pid: str, ctx: LlmDep) -> Project:
    """``RunnerProject``'s check in one thread hop (its session, user and project dependencies
    take one each)."""
    return await run_in_threadpool(service.runnable_project, ctx, pid)


ChatProject = Annotated[Project, Depends(chat_project)]


@router.post("/projects/{pid}/llm/chat", responses=errors(503))
async def chat(body: ChatRequest, project: ChatProject, ctx: LlmDep) -> ChatAnswer:
    return await service.chat(ctx, project, body)


@router.post("/projects/{pid}/llm/chat/{chat_id}/stop")
async def stop_chat(chat_id: str, project: ChatProject, ctx: LlmDep) -> ChatStopped:
    return await service.stop(ctx, project, chat_id)


@router.post("/projects/{pid}/llm/embed", responses=errors(503))
async def embed(body: EmbedRequest, project: RunnerProject, chats: ChatsDep) -> EmbedAnswer:
    return await run_in_threadpool(service.embed, chats, project, body)
