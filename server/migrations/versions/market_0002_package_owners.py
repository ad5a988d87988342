"""Market: each registry package id belongs to the project that first published it.

Ids already in the registry go to the project of their earliest remaining version.

Revision ID: market_0002
Revises: market_0001
"""

import sqlalchemy as sa
from alembic import op

revision = "market_0002"
down_revision = "market_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "market_packages",
        sa.Column("package_id", sa.String(64), primary_key=True),
        sa.Column("project_id", sa.String(32), nullable=True),
        sa.Column("since", sa.DateTime(), nullable=False),
    )
    op.execute(
        "INSERT INTO market_packages (package_id, project_id, since) "
        "SELECT v.package_id, v.project_id, v.published_at FROM market_versions v "
        "WHERE v.id = (SELECT MIN(w.id) FROM market_versions w WHERE w.package_id = v.package_id)"
    )


def downgrade() -> None:
    op.drop_table("market_packages")
