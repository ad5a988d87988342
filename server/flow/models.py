"""The flow of a project: one step per stage from data to a measured device, each with its state,
its latest artifact and the action to take next (``GET /api/projects/{pid}/flow``)."""

from typing import Any, Literal

from pydantic import BaseModel, Field

StepId = Literal["data", "train", "convert", "quantize", "evaluate", "budgets", "deploy", "measure"]
StepState = Literal["done", "stale", "failed", "todo"]
# What the ``next`` button opens: a model tool's form, or a panel of the workbench.
NextAction = Literal["datasets", "train", "tool", "budgets", "checks", "deploy", "measure"]


class FlowArtifact(BaseModel):
    """The step's latest output; ``lineage`` is the route that explains it (null for a folder)."""

    path: str
    sha256: str | None = None
    lineage: str | None = None


class FlowNext(BaseModel):
    """The action to take, its ``args`` filled from the step before (a tool's form fields)."""

    action: NextAction
    label: str
    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)


class FlowStep(BaseModel):
    id: StepId
    title: str
    state: StepState
    artifact: FlowArtifact | None = None
    detail: str
    next: FlowNext | None = None


class Flow(BaseModel):
    steps: list[FlowStep]
