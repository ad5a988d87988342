"""MNN-LLM: chat with an exported model, embed texts (export and bench are tool runs)."""

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from server.api.deps import HubDep, RunnerProject
from server.api.openapi import errors
from server.llm import service
from server.llm.chat import ChatManager
from server.llm.schemas import ChatAnswer, ChatRequest, EmbedAnswer, EmbedRequest

router = APIRouter(prefix="/api", tags=["llm"])


def get_chats(conn: HTTPConnection) -> ChatManager:
    chats: ChatManager = conn.app.state.chats
    return chats


ChatsDep = Annotated[ChatManager, Depends(get_chats)]


@router.post("/projects/{pid}/llm/chat", responses=errors(503))
async def chat(body: ChatRequest, project: RunnerProject, chats: ChatsDep, hub: HubDep) -> ChatAnswer:
    return await run_in_threadpool(service.chat, chats, hub, project, body)


@router.post("/projects/{pid}/llm/embed", responses=errors(503))
async def embed(body: EmbedRequest, project: RunnerProject, chats: ChatsDep) -> EmbedAnswer:
    return await run_in_threadpool(service.embed, chats, project, body)
