"""Every API router, in the order they are mounted."""

from fastapi import APIRouter

from server.api import ws
from server.api.routes import files, git, jobs, projects, system, tools

ROUTERS: list[APIRouter] = [
    system.router, projects.router, files.router, git.router, jobs.router, tools.router,
    ws.router,
]
