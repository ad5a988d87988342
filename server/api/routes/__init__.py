"""Every API router, in the order they are mounted."""

from fastapi import APIRouter

from server.api import agent_download, device_ws, ws
from server.api.routes import (
    auth,
    backups,
    checks,
    cloud,
    datasets,
    device_shares,
    devices,
    files,
    flow,
    git,
    git_identity,
    jobs,
    keybindings,
    lineage,
    llm,
    lsp,
    market,
    members,
    model_specs,
    netron,
    pipelines,
    projects,
    ray,
    search,
    system,
    terminal,
    tools,
)

ROUTERS: list[APIRouter] = [
    system.router, projects.router, files.router, jobs.router, cloud.router, tools.router, ws.router,
    devices.router, device_ws.router, agent_download.router, git.router, git_identity.router,
    auth.router, members.router, device_shares.router, netron.router,
    search.router, checks.router, terminal.router, llm.router, lsp.router,
    lineage.router, ray.router, market.router, model_specs.router,
    pipelines.router, datasets.router, keybindings.router, backups.router, flow.router,
]
