"""Projects: a state, ``cloning`` while a clone fills the folder, else ``ready``.

Revision ID: projects_0001
Revises: 0001_core
"""

import sqlalchemy as sa
from alembic import op

revision = "projects_0001"
down_revision = "0001_core"
branch_labels = ("projects",)
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("projects") as batch:
        batch.add_column(sa.Column("state", sa.String(16), nullable=False, server_default="ready"))


def downgrade() -> None:
    with op.batch_alter_table("projects") as batch:
        batch.drop_column("state")
