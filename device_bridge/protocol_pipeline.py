"""The device bridge protocol's pipeline messages (docs/protocol.md, "Pipelines";
docs/pipelines.md): the server's own request to run a pipeline on a device, and its result."""

from typing import Annotated, Any, Literal

from pydantic import Field

from device_bridge.protocol_base import Model, Sid


class PipelineStart(Model):
    """A pipeline (docs/pipelines.md) on input images of the session's folder; the server's own
    request: the result comes back to it by ``rid``."""

    type: Literal["pipeline.start"] = "pipeline.start"
    sid: Sid
    rid: Sid
    pipeline: str = Field(min_length=1, max_length=1024)
    inputs: list[Annotated[str, Field(min_length=1, max_length=1024)]] = Field(min_length=1, max_length=64)
    variants: dict[str, dict[str, Any]] = Field(default_factory=dict, max_length=64)


class PipelineStop(Model):
    """Stop the pipeline ``rid`` after its current stage; its ``pipeline.result`` still comes,
    with the inputs done and ``result.stopped: {done, given}``."""

    type: Literal["pipeline.stop"] = "pipeline.stop"
    sid: Sid
    rid: Sid


class PipelineResult(Model):
    type: Literal["pipeline.result"] = "pipeline.result"
    sid: Sid
    rid: Sid
    ok: bool
    error: str | None = None
    code: str | None = Field(default=None, description="bad_pipeline, pipeline_failed, "
                             "bad_input_file, pipeline_busy, result_too_big, pipeline_crashed")
    where: str | None = Field(default=None, description="the stage or field a refusal names")
    result: dict[str, Any] | None = Field(default=None, description="as the pipeline tool run's; "
                                              "a stopped run's also has stopped: {done, given}")
