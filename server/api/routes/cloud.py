"""Cloud training: the PAI-DLC settings (secrets write-only), its machine types, where a cloud
job runs, and pulling a job's artifacts into the project (docs/pai-dlc.md)."""

from typing import Annotated

from fastapi import APIRouter, Depends

from server.api.deps import AdminUser, CurrentUser, HubDep, JobsDep, SessionDep
from server.core.error_codes import ErrorCode
from server.core.errors import Unavailable
from server.training.artifacts import ArtifactsPulled, pull_artifacts
from server.training.cloud import EcsSpecInfo
from server.training.paidlc.runner import BACKEND, CloudJobInfo, PaiDlcRunner, cloud_info
from server.training.paidlc.settings import PaiDlcSettingsPublic, PaiDlcSettingsUpdate

router = APIRouter(prefix="/api", tags=["cloud"])


def pai_dlc_runner(jobs: JobsDep) -> PaiDlcRunner:
    runner = jobs.runners.get(BACKEND)
    if not isinstance(runner, PaiDlcRunner):
        raise Unavailable("the PAI-DLC backend is not enabled on this server",
                          code=ErrorCode.BACKEND_UNAVAILABLE)
    return runner


PaiDlcDep = Annotated[PaiDlcRunner, Depends(pai_dlc_runner)]


@router.get("/settings/pai-dlc")
def get_pai_dlc_settings(_: CurrentUser, runner: PaiDlcDep) -> PaiDlcSettingsPublic:
    return runner.store.public()


@router.put("/settings/pai-dlc")
def put_pai_dlc_settings(body: PaiDlcSettingsUpdate, _: AdminUser,
                         runner: PaiDlcDep) -> PaiDlcSettingsPublic:
    return runner.store.update(body)


@router.get("/settings/pai-dlc/ecs-specs")
def list_ecs_specs(_: CurrentUser, runner: PaiDlcDep) -> list[EcsSpecInfo]:
    return runner.store.connect().client.list_ecs_specs()


@router.post("/jobs/{jid}/artifacts/pull")
def pull_job_artifacts(jid: str, session: SessionDep, user: CurrentUser, jobs: JobsDep,
                       hub: HubDep) -> ArtifactsPulled:
    return pull_artifacts(jobs, hub, session, user, jid)


@router.get("/jobs/{jid}/cloud")
def get_cloud_job(jid: str, session: SessionDep, user: CurrentUser, jobs: JobsDep) -> CloudJobInfo:
    return cloud_info(jobs, session, user, jid)
