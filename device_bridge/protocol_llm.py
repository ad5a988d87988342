"""The device bridge protocol's on-device MNN-LLM messages (docs/protocol.md, "MNN-LLM chat and
benchmark"; docs/llm.md): a chat or an LLM benchmark on a device, its tokens, progress and end."""

from typing import Any, Literal

from pydantic import Field

from device_bridge.protocol_base import Model, Sid, Text


class LlmMessage(Model):
    role: Literal["system", "user", "assistant"]
    content: str = Field(max_length=100_000)


class LlmChat(Model):
    """Answer ``messages`` with the exported folder ``model`` (session-relative)."""

    type: Literal["llm.chat"] = "llm.chat"
    sid: Sid
    rid: Sid = Field(description="names this request in its tokens, its end and a stop")
    model: str = Field(min_length=1, max_length=1024)
    threads: int = Field(default=2, ge=1, le=64)
    messages: list[LlmMessage] = Field(min_length=1, max_length=200)
    max_new_tokens: int = Field(default=128, ge=1, le=4096)
    sampler: dict[str, Any] = Field(default_factory=dict)


class LlmBench(Model):
    type: Literal["llm.bench"] = "llm.bench"
    sid: Sid
    rid: Sid
    model: str = Field(min_length=1, max_length=1024)
    threads: int = Field(default=2, ge=1, le=64)
    prompt_tokens: list[int] = Field(min_length=1, max_length=8)
    gen_tokens: int = Field(default=128, ge=1, le=4096)
    repeats: int = Field(default=3, ge=1, le=50)


class LlmStop(Model):
    type: Literal["llm.stop"] = "llm.stop"
    sid: Sid
    rid: Sid


class LlmToken(Model):
    """One or more tokens of an answer (those made in 5 ms, or in a run of MNN's own loop)."""

    type: Literal["llm.token"] = "llm.token"
    sid: Sid
    rid: Sid
    text: Text


class LlmProgress(Model):
    type: Literal["llm.progress"] = "llm.progress"
    sid: Sid
    rid: Sid
    fraction: float = Field(ge=0, le=1)
    stage: str = Field(max_length=256)


class LlmDone(Model):
    """The end of a request: the answer's figures or the benchmark's cases, or why it failed."""

    type: Literal["llm.done"] = "llm.done"
    sid: Sid
    rid: Sid
    ok: bool
    code: str | None = Field(default=None, max_length=64)
    error: str | None = Field(default=None, max_length=4096)
    result: dict[str, Any] = Field(default_factory=dict)
