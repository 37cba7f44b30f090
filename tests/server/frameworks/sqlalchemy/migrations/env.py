"""Alembic's environment: online migrations only, with the URL the caller
sets (recipes.py: Config.set_main_option("sqlalchemy.url", ...))."""
from alembic import context
from sqlalchemy import create_engine

import models

engine = create_engine(context.config.get_main_option("sqlalchemy.url"), future=True)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=models.Base.metadata)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
