"""Market: the team registry, one row per published package version.

Revision ID: market_0001
Revises: 0001_core
"""

import sqlalchemy as sa
from alembic import op

revision = "market_0001"
down_revision = "0001_core"
branch_labels = ("market",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "market_versions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("package_id", sa.String(64), nullable=False),
        sa.Column("version", sa.String(32), nullable=False),
        sa.Column("manifest", sa.JSON(), nullable=False),
        sa.Column("readme", sa.String(200_000), nullable=False),
        sa.Column("lineage", sa.JSON(), nullable=True),
        sa.Column("publisher", sa.String(64), nullable=False),
        sa.Column("project_id", sa.String(32), nullable=True),
        sa.Column("deprecated", sa.Boolean(), nullable=False),
        sa.Column("published_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("package_id", "version", name="uq_market_version"),
    )
    op.create_index("ix_market_versions_package_id", "market_versions", ["package_id"])


def downgrade() -> None:
    op.drop_index("ix_market_versions_package_id", "market_versions")
    op.drop_table("market_versions")
