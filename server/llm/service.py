"""The chat and embedding API: resolve the model in the project, run it, stream the tokens."""

from typing import Any

import numpy as np

from server.core.events import EventHub
from server.llm.chat import ChatManager
from server.llm.prepare import exported_folder
from server.llm.schemas import ChatAnswer, ChatRequest, EmbedAnswer, EmbedRequest
from server.projects.models import Project


def chat(manager: ChatManager, hub: EventHub, project: Project, request: ChatRequest) -> ChatAnswer:
    folder = exported_folder(project.path, request.model)
    message: dict[str, Any] = {
        "messages": [m.model_dump() for m in request.messages],
        "max_new_tokens": request.max_new_tokens,
        "sampler": request.sampler.model_dump(),
    }
    chat_id = request.chat_id or ""

    def publish(piece: str) -> None:
        hub.publish(project.id, "llm", "token", {"chat_id": chat_id, "text": piece})

    summary = manager.run(folder, request.threads, message, on_token=publish if request.stream else None)
    answer = ChatAnswer.model_validate(summary)
    if request.stream:
        hub.publish(project.id, "llm", "done", {"chat_id": chat_id, **answer.model_dump()})
    return answer


def embed(manager: ChatManager, project: Project, request: EmbedRequest) -> EmbedAnswer:
    folder = exported_folder(project.path, request.model)
    vectors = np.asarray(manager.run(folder, request.threads, {"embed": request.texts},
                                     embedding=True)["vectors"], dtype=np.float64)
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return EmbedAnswer(dimensions=int(vectors.shape[1]), similarity=np.round(unit @ unit.T, 6).tolist())
