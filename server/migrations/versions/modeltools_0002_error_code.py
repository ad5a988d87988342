"""Model tools: the kind of a failed run's error (``input_shape_required``, …).

Revision ID: modeltools_0002
Revises: modeltools_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "modeltools_0002"
down_revision = "modeltools_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tool_runs", sa.Column("error_code", sa.String(64), nullable=True))


def downgrade() -> None:
    op.drop_column("tool_runs", "error_code")
