"""Model tools: one row per tool run.

Revision ID: modeltools_0001
Revises: 0001_core
"""

import sqlalchemy as sa
from alembic import op

revision = "modeltools_0001"
down_revision = "0001_core"
branch_labels = ("modeltools",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tool_runs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "project_id",
            sa.String(32),
            sa.ForeignKey("projects.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("tool", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("args", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(8000), nullable=True),
        sa.Column("log_path", sa.String(4096), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_tool_runs_project_id", "tool_runs", ["project_id"])
    op.create_index("ix_tool_runs_status", "tool_runs", ["status"])


def downgrade() -> None:
    op.drop_index("ix_tool_runs_status", "tool_runs")
    op.drop_index("ix_tool_runs_project_id", "tool_runs")
    op.drop_table("tool_runs")
