"""The device bridge protocol's device facts (docs/protocol.md, ``hello`` and "Fresh facts"):
what an agent tells the hub about its device at ``hello``, and again, without reconnecting, when
those facts change (``device.facts``: after something was installed, or on ``facts.refresh``)."""

from typing import Literal

from pydantic import Field

from device_bridge.protocol_base import Model


class DoctorCheck(Model):
    name: str = Field(max_length=64)
    ok: bool
    detail: str = Field(max_length=1024)
    fix: str = Field(default="", max_length=1024)
    required: bool = True


class MnnBackend(Model):
    """One of MNN's backends on a machine: whether its MNN build can run it, else why not."""

    name: str = Field(max_length=32, description="CPU, OpenCL, Vulkan, CUDA, Metal, CoreML, NNAPI")
    available: bool
    reason: str = Field(default="", max_length=1024, description="why it is absent; empty if not")


class DeviceInfo(Model):
    id: str = Field(min_length=1, max_length=64)
    name: str = Field(min_length=1, max_length=128)
    os: str = Field(max_length=128)
    arch: str = Field(max_length=64)
    python: str = Field(max_length=64)
    mnn: str | None = Field(default=None, max_length=64)
    cpus: int = Field(ge=0)
    mem: int = Field(ge=0, description="total memory in bytes")
    agent: str = Field(default="", max_length=64)
    agent_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$",
                                     description="of the agent.pyz it runs from, if any")
    time: float | None = Field(default=None, description="the device's clock at hello")
    checks: list[DoctorCheck] = Field(default_factory=list, max_length=32,
                                      description="the doctor's local checks")
    backends: list[MnnBackend] | None = Field(
        default=None, max_length=32,
        description="MNN's backends on the device (device_bridge/backends.py); null without MNN "
        "and from agents older than this field")
    cameras: list[str] | None = Field(
        default=None, max_length=32,
        description="the device's own cameras (/dev/videoN) that OpenCV opens "
        "(device_bridge/playground/cameras.py); null without OpenCV and from agents older than this field")


class FactsRefresh(Model):
    """The hub asks the agent to probe its device again (a person pressed Refresh)."""

    type: Literal["facts.refresh"] = "facts.refresh"


class DeviceFacts(Model):
    """The device's facts probed again; they replace the ones of its ``hello``."""

    type: Literal["device.facts"] = "device.facts"
    device: DeviceInfo
    reason: Literal["asked", "changed"] = Field(
        description="asked: a facts.refresh; changed: the agent saw MNN or a package it checks change")
