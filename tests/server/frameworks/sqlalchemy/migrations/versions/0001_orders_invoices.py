"""orders (a bigint key) and invoices (a snowflake key), keyed by snowflake_nextval()

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

from models import Snowflake

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "orders",
        sa.Column("id", sa.BigInteger(), server_default=sa.text("snowflake_nextval()"), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"))
    op.create_table(
        "invoices",
        sa.Column("id", Snowflake(), server_default=sa.text("snowflake_nextval()"), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"))


def downgrade():
    op.drop_table("invoices")
    op.drop_table("orders")
