"""Alibaba Cloud PAI-DLC backend pieces: settings, credentials and the SDK client wrapper.

``PaiDlcClient`` (``client.py``) is the only thing the job runner needs; see its module
docstring for the calls. ``PaiDlcSettings``/``PaiCredentials`` (``settings.py``) describe where
jobs run and with which keys; leaving credentials out uses the standard Alibaba Cloud chain.
``base.py`` is what every cloud runner (``pai-dlc`` and ``ray``) shares: ``CloudRunner`` and
``CloudWatcher``.
"""

from .artifacts import Artifact, DownloadedFile, DownloadProgress
from .client import CODE_MOUNT, OUTPUT_MOUNT, PaiDlcClient
from .logs import LogChunk, LogCursor
from .models import TERMINAL_STATUSES, WAITING_STATUSES, CloudJob, CloudPod, EcsSpecInfo, JobRequest
from .settings import PaiCredentials, PaiDlcSettings

__all__ = [
    "CODE_MOUNT",
    "OUTPUT_MOUNT",
    "TERMINAL_STATUSES",
    "WAITING_STATUSES",
    "Artifact",
    "CloudJob",
    "CloudPod",
    "DownloadProgress",
    "DownloadedFile",
    "EcsSpecInfo",
    "JobRequest",
    "LogChunk",
    "LogCursor",
    "PaiCredentials",
    "PaiDlcClient",
    "PaiDlcSettings",
]
