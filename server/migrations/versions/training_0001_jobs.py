"""Training: jobs and per-project interpreter settings.

Revision ID: training_0001
Revises: 0001_core
"""

import sqlalchemy as sa
from alembic import op

revision = "training_0001"
down_revision = "0001_core"
branch_labels = ("training",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("project_id", sa.String(32),
                  sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("backend", sa.String(32), nullable=False),
        sa.Column("command", sa.String(4096), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("commit", sa.String(64), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(2000), nullable=True),
        sa.Column("exit_code", sa.Integer(), nullable=True),
        sa.Column("pid", sa.Integer(), nullable=True),
        sa.Column("pid_started_at", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_jobs_project_id", "jobs", ["project_id"])
    op.create_index("ix_jobs_status", "jobs", ["status"])
    op.create_table(
        "project_runtimes",
        sa.Column("project_id", sa.String(32),
                  sa.ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("interpreter", sa.String(4096), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("project_runtimes")
    op.drop_table("jobs")
