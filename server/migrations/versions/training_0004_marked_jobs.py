"""Training: the job whose model a project's flow continues from (one per project).

Revision ID: training_0004
Revises: training_0003
"""

import sqlalchemy as sa
from alembic import op

revision = "training_0004"
down_revision = "training_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "marked_jobs",
        sa.Column("project_id", sa.String(32), sa.ForeignKey("projects.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("job_id", sa.String(32), nullable=False),
        sa.Column("marked_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("marked_jobs")
