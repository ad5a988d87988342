"""Lineage: which tool run or job made or used each file, by the file's sha256.

Revision ID: lineage_0001
Revises: 0001_core
"""

import sqlalchemy as sa
from alembic import op

revision = "lineage_0001"
down_revision = "0001_core"
branch_labels = ("lineage",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lineage_links",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "project_id",
            sa.String(32),
            sa.ForeignKey("projects.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("ref_id", sa.String(32), nullable=False),
        sa.Column("path_at_time", sa.String(4096), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_lineage_links_sha256", "lineage_links", ["sha256"])
    op.create_index("ix_lineage_links_ref_id", "lineage_links", ["ref_id"])


def downgrade() -> None:
    op.drop_index("ix_lineage_links_ref_id", "lineage_links")
    op.drop_index("ix_lineage_links_sha256", "lineage_links")
    op.drop_table("lineage_links")
