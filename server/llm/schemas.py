"""The chat API's request and answer (the export and bench arguments are model-tool
arguments: ``server/modeltools/schemas.py``)."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from server.modeltools.schemas import PathStr


class Sampler(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["greedy", "temperature"] = "greedy"
    temperature: float = Field(default=0.8, gt=0, le=10)
    top_k: int = Field(default=40, ge=1, le=1000)
    seed: int | None = Field(default=None, ge=0, le=2**31 - 1)


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str = Field(max_length=100_000)


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: PathStr = Field(description="the exported folder (or its config.json), project-relative")
    messages: list[Message] = Field(min_length=1, max_length=200)
    max_new_tokens: int = Field(default=128, ge=1, le=4096)
    sampler: Sampler = Field(default_factory=Sampler)
    threads: int = Field(default=2, ge=1, le=64)
    stream: bool = False
    chat_id: str | None = Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                description="names the tokens' events on the tab socket, and "
                                "the answer for POST .../llm/chat/{chat_id}/stop")
    device_id: str | None = Field(default=None, min_length=1, max_length=64,
                                  description="answer on this paired device, through its agent")


class ChatAnswer(BaseModel):
    text: str
    prompt_tokens: int
    generated_tokens: int
    prefill_ms: float
    decode_ms: float
    prefill_tps: float
    decode_tps: float
    ttft_ms: float
    finish_reason: Literal["stop", "length", "stopped"]


class ChatStopped(BaseModel):
    stopped: bool = Field(description="false when no answer of that chat_id was in progress")


class EmbedRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: PathStr = Field(description="an exported embedding model folder, project-relative")
    texts: list[str] = Field(min_length=1, max_length=64)
    threads: int = Field(default=2, ge=1, le=64)


class EmbedAnswer(BaseModel):
    dimensions: int
    similarity: list[list[float]] = Field(description="cosine similarity of every pair of texts")
