"""The web UI's hand-kept TypeScript API types agree with ``app.openapi()``.

Every exported interface in ``webui/src/api/`` is either the mirror of a schema of the document
(a response the UI reads, or a body it sends) or listed as not an HTTP payload (socket events,
UI-only shapes). A response type may leave out fields it does not use, but each field it names
must exist, and a field it treats as always present must be one the schema requires. A body type
must name only fields the schema knows and send every field the schema requires. A new interface
that is in neither list fails the test, so it cannot drift unnoticed.
"""

import re
from pathlib import Path

from fastapi.testclient import TestClient

from server.core.config import REPO_ROOT

API_DIR = REPO_ROOT / "webui" / "src" / "api"
INTERFACE = re.compile(r"export interface (\w+)(?: extends ([\w, ]+))? \{\n(.*?)\n\}", re.S)
FIELD = re.compile(r"^  (\w+)(\??):", re.M)

RESPONSES = {
    "CheckResult": "CheckResult", "CheckReport": "CheckReport", "CommitCheck": "CommitCheck",
    "Budget": "Budget", "BudgetTables": "BudgetTables",
    "Device": "DevicePublic", "PairingOption": "PairingOption", "Pairing": "PairingPublic",
    "DeviceSession": "DeviceSessionPublic", "GitFileChange": "FileChange", "GitStatus": "Status",
    "GitDiff": "Diff", "CommitInfo": "CommitInfo", "CommitDetail": "CommitDetail", "Branch": "Branch",
    "Remote": "Remote", "RefLabel": "RefLabel", "StashEntry": "StashEntry",
    "StashApplied": "StashApplied", "SavedCredential": "SavedCredential",
    "FetchResult": "FetchResult", "PullResult": "PullResult", "PushResult": "PushResult",
    "MergeResult": "MergeResult", "PickResult": "PickResult",
    "TagInfo": "TagInfo", "TagPushResult": "TagPushResult",
    "GitIdentity": "GitIdentityOut", "Job": "JobPublic", "LogChunk": "LogChunk",
    "JobMetrics": "JobMetrics", "Runtime": "RuntimePublic", "PulledFile": "PulledFile",
    "ArtifactsPulled": "ArtifactsPulled", "PaiDlcSettings": "PaiDlcSettingsPublic",
    "EcsSpec": "EcsSpecInfo", "Account": "UserPublic", "Member": "MemberPublic",
    "UserInfo": "UserInfo", "ApiToken": "TokenPublic", "CreatedToken": "TokenCreated",
    "ToolRun": "ToolRunPublic", "ToolLog": "ToolLog", "Project": "ProjectPublic",
    "Template": "TemplateInfo", "Health": "Health", "Me": "UserPublic", "FileEntry": "Entry",
    "FileContent": "FileContent", "SaveResult": "Saved", "UiState": "UiState",
    "ConflictChunk": "ConflictChunk", "ConflictFile": "ConflictFile", "ChatAnswer": "ChatAnswer",
    "EmbedAnswer": "EmbedAnswer", "Blame": "Blame", "BlameRange": "BlameRange",
    "LineageGraph": "LineageGraph", "LineageNode": "LineageNode", "LineageEdge": "LineageEdge",
    "Flow": "Flow", "FlowStep": "FlowStep", "FlowArtifact": "FlowArtifact", "FlowNext": "FlowNext",
    "MarketEntry": "MarketEntry", "MarketCard": "MarketCard", "VersionInfo": "VersionInfo",
    "PackageFile": "FileEntry", "PackageMetrics": "Metrics", "LatencyFigure": "LatencyFigure",
    "PackageInput": "InputSpec", "PackageOutput": "OutputSpec", "PackageDemo": "Demo",
    "SourceStatus": "SourceStatus",
    "InstallResult": "InstallResult", "BackendInfo": "BackendInfo", "RaySettings": "RaySettingsPublic",
    "Sweep": "SweepPublic", "SweepRun": "SweepRun", "SandboxStatus": "SandboxStatus",
    "MnnBackends": "MnnBackends", "MnnBackend": "MnnBackend",
    "ModelSpecInfo": "ModelSpecPublic", "DeclaredTensor": "DeclaredTensor",
    "DatasetSummary": "DatasetSummary", "SkippedFile": "SkippedFile", "Backup": "BackupOut",
    "PipelineComparison": "PipelineComparison", "StageComparison": "StageComparison",
    "StageFigures": "StageFigures", "EndToEndFigures": "EndToEndFigures",
    "Divergence": "Divergence", "FirstDivergence": "FirstDivergence",
    "PipelineEndToEnd": "EndToEnd", "MarkedModel": "MarkedModel", "FactsAsked": "FactsAsked",
}
BODIES = {
    "DiffRequest": "DiffRequest", "JobCreate": "JobCreate", "SyncBody": "SyncRequest",
    "PaiDlcSettingsUpdate": "PaiDlcSettingsUpdate", "ChatRequest": "ChatRequest", "ChatMessage": "Message",
    "ChatSampler": "Sampler", "EmbedRequest": "EmbedRequest",
    "InstallRequest": "InstallRequest", "PublishRequest": "PublishRequest",
    "RaySettingsUpdate": "RaySettingsUpdate", "SweepCreate": "SweepCreate",
    "PipelineRunRequest": "PipelineRunRequest", "StageVariant": "StageVariant",
    "PipelineEvaluateRequest": "PipelineEvaluateRequest",
}
NOT_HTTP_PAYLOADS = {
    # websocket events and device messages (docs/api.md, docs/protocol.md)
    "SessionStateEvent", "SyncDone", "DeviceError", "RunStarted", "RunLog", "RunExit", "PerfSample",
    "WatchHit", "WatchDone", "JobLogEvent", "JobMetricEvent", "ArtifactsProgress", "ToolProgress",
    "ToolLogLine", "FilesChanged", "FileChange", "LlmTokenEvent", "DeviceFactsEvent",
    # parts of a tool run's or a check's free-form result, and of a device's info
    "DiffOutput", "DiffLayer", "ChangedOp", "DiffResult", "DeviceInfo", "DoctorCheck", "OpTime",
    "BenchResult", "TensorStats", "TensorInfo", "ConvertResult", "QuantizeLayer", "QuantizeResult",
    "InspectResult", "ErrorFigures", "CompareOutput", "CompareResult", "BenchmarkOp",
    "BenchmarkResult", "RuntimeRecord", "QuantizeSpeed", "TryOutput", "TryResult",
    "PipelineStage", "PipelineInputResult", "PipelineResult", "QuantizeAccuracy", "EvaluateRequest",
    "EvaluatedModel", "EvaluatedClass", "EvaluateAnswer", "Disagreement", "EvaluateResult",
    "EvaluatedSample", "PipelineEvaluation",
    # a model spec's own fields (free-form in the API, checked by device_bridge/runtime/spec.py)
    "SpecBody", "SpecInput", "SpecOutput",
    # shared pieces, client options and page data
    "Credentials", "PaiDlcOptions", "RayOptions", "NotPushed", "RequestOptions", "ConflictBody", "PageConfig",
    "MarketQuery", "BackupMark",
}


def _interfaces() -> dict[str, dict[str, bool]]:
    """Interface name → {field: optional}, with the fields of the interfaces it extends."""
    raw: dict[str, tuple[list[str], dict[str, bool]]] = {}
    for source in sorted(API_DIR.glob("*.ts")):
        for name, parents, body in INTERFACE.findall(Path(source).read_text()):
            fields = {field: bool(optional) for field, optional in FIELD.findall(body)}
            raw[name] = ([p.strip() for p in parents.split(",") if p.strip()], fields)

    def resolved(name: str) -> dict[str, bool]:
        parents, fields = raw[name]
        merged: dict[str, bool] = {}
        for parent in parents:
            merged.update(resolved(parent) if parent in raw else {})
        return {**merged, **fields}

    return {name: resolved(name) for name in raw}


def _mismatches(ts_name: str, fields: dict[str, bool], schema: dict, body: bool) -> list[str]:
    known, required = set(schema.get("properties", {})), set(schema.get("required", []))
    found = [f"{ts_name}.{f}: not in the schema" for f in sorted(set(fields) - known)]
    if body:
        found += [f"{ts_name}.{f}: required by the schema" for f in sorted(required)
                  if fields.get(f, True)]
    else:
        found += [f"{ts_name}.{f}: not always sent" for f, optional in sorted(fields.items())
                  if not optional and f in known and f not in required]
    return found


def test_every_api_interface_is_classified() -> None:
    classified = RESPONSES.keys() | BODIES.keys() | NOT_HTTP_PAYLOADS
    new = sorted(set(_interfaces()) - classified)
    assert not new, f"add {new} to RESPONSES, BODIES or NOT_HTTP_PAYLOADS in this test"


def test_typescript_api_types_agree_with_the_openapi_document(client: TestClient) -> None:
    schemas = client.app.openapi()["components"]["schemas"]
    interfaces = _interfaces()
    problems = [f"{name}: no schema {target}" for name, target in {**RESPONSES, **BODIES}.items()
                if target not in schemas]
    for mapping, body in ((RESPONSES, False), (BODIES, True)):
        for ts_name, target in mapping.items():
            if target in schemas and ts_name in interfaces:
                problems += _mismatches(ts_name, interfaces[ts_name], schemas[target], body)
    assert not problems, "TypeScript types that drifted from the API:\n" + "\n".join(problems)
