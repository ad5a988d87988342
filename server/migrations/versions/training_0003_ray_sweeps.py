"""Training: Ray cluster settings (team default and per project, secrets sealed) and sweeps.

Revision ID: training_0003
Revises: training_0002
"""

import sqlalchemy as sa
from alembic import op

revision = "training_0003"
down_revision = "training_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ray_settings",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("project_id", sa.String(32), sa.ForeignKey("projects.id", ondelete="CASCADE"),
                  nullable=True, unique=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("sealed_secrets", sa.Text(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "sweeps",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("project_id", sa.String(32), sa.ForeignKey("projects.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("backend", sa.String(32), nullable=False),
        sa.Column("command", sa.String(4096), nullable=False),
        sa.Column("grid", sa.String(4096), nullable=False),
        sa.Column("runs", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_sweeps_project_id", "sweeps", ["project_id"])


def downgrade() -> None:
    op.drop_table("sweeps")
    op.drop_table("ray_settings")
