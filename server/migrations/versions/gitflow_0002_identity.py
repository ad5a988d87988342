"""Git flow: each user's commit identity (name and email), used when a repository names none.

Revision ID: gitflow_0002
Revises: gitflow_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "gitflow_0002"
down_revision = "gitflow_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "git_identities",
        sa.Column(
            "user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("git_identities")
