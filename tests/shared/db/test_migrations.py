"""Migrations: upgrade to head, models equal to the migrated schema, start-up schema check."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import CheckConstraint, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.db.engine import create_engine
from shared.db.migrate import (
    SchemaMismatchError,
    alembic_config,
    current_revision,
    ensure_schema_current,
    head_revision,
    upgrade_to_head,
)
from shared.db.models import Base


@pytest.fixture
async def scratch_url(database_url: str, db_engine: AsyncEngine) -> AsyncIterator[str]:
    """A separate, empty database on the session server, dropped afterwards."""
    name = f"scratch_{uuid.uuid4().hex[:10]}"
    async with db_engine.connect() as connection:
        autocommit = await connection.execution_options(isolation_level="AUTOCOMMIT")
        await autocommit.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(database_url).set(database=name).render_as_string(hide_password=False)
    async with db_engine.connect() as connection:
        autocommit = await connection.execution_options(isolation_level="AUTOCOMMIT")
        await autocommit.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))


def _schema_diffs(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "compare_server_default": True}
    )
    return list(compare_metadata(context, Base.metadata))


async def test_upgrade_to_head_stamps_head_and_schema_check_passes(db_engine: AsyncEngine) -> None:
    assert await current_revision(db_engine) == head_revision()
    assert await ensure_schema_current(db_engine) == head_revision()


async def test_migrated_schema_matches_models_with_no_differences(db_engine: AsyncEngine) -> None:
    async with db_engine.connect() as connection:
        diffs = await connection.run_sync(_schema_diffs)
    assert diffs == []


async def test_migrated_schema_matches_models_where_autogenerate_is_blind(
    db_engine: AsyncEngine,
) -> None:
    """Index methods, operator classes, partial predicates, CHECKs and generated columns."""
    async with db_engine.connect() as connection:
        index_defs: dict[str, str] = dict(
            (await connection.execute(text("SELECT indexname, indexdef FROM pg_indexes"))).all()
        )
        checks = set(
            (
                await connection.execute(
                    text(
                        "SELECT conname FROM pg_constraint"
                        " WHERE contype = 'c' AND connamespace = 'public'::regnamespace"
                    )
                )
            ).scalars()
        )
        generated: dict[str, str] = dict(
            (
                await connection.execute(
                    text(
                        "SELECT table_name || '.' || column_name, generation_expression"
                        " FROM information_schema.columns WHERE is_generated = 'ALWAYS'"
                    )
                )
            ).all()
        )
    model_checks: set[str] = set()
    model_generated: dict[str, str] = {}
    for table in Base.metadata.tables.values():
        for index in table.indexes:
            definition = index_defs[str(index.name)]
            options = index.dialect_options["postgresql"]
            assert f"USING {options['using'] or 'btree'} " in definition, definition
            for opclass in (options["ops"] or {}).values():
                assert opclass in definition, definition
            if options["where"] is not None:
                assert f"WHERE ({options['where'].text})" in definition, definition
        model_checks.update(
            str(constraint.name)
            for constraint in table.constraints
            if isinstance(constraint, CheckConstraint)
        )
        for column in table.columns:
            if column.computed is not None:
                source = str(column.computed.sqltext).split(", ")[1].rstrip(")")
                model_generated[f"{table.name}.{column.name}"] = source
    assert checks == model_checks
    assert generated.keys() == model_generated.keys()
    for name, source in model_generated.items():
        assert f"to_tsvector('english'::regconfig, {source})" == generated[name]


async def test_upgrade_to_head_twice_is_a_no_op(database_url: str, db_engine: AsyncEngine) -> None:
    await upgrade_to_head(database_url)
    assert await current_revision(db_engine) == head_revision()


async def test_migration_downgrades_to_empty_and_upgrades_again(scratch_url: str) -> None:
    await upgrade_to_head(scratch_url)
    engine = create_engine(scratch_url)
    try:

        def downgrade(connection: Connection) -> None:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "base")

        async with engine.begin() as connection:
            await connection.run_sync(downgrade)
        assert await current_revision(engine) is None
        async with engine.connect() as connection:
            tables = (
                await connection.execute(
                    text("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
                )
            ).scalar_one()
        assert tables == 1  # only alembic_version is left
        await upgrade_to_head(scratch_url)
        assert await current_revision(engine) == head_revision()
    finally:
        await engine.dispose()


async def test_schema_check_on_unmigrated_database_raises_not_migrated(scratch_url: str) -> None:
    engine = create_engine(scratch_url)
    try:
        with pytest.raises(SchemaMismatchError, match="not migrated") as raised:
            await ensure_schema_current(engine)
    finally:
        await engine.dispose()
    assert "rememberstack migrate" in str(raised.value)
    assert head_revision() in str(raised.value)


async def test_schema_check_on_unknown_revision_names_both_revisions(scratch_url: str) -> None:
    engine = create_engine(scratch_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text("CREATE TABLE alembic_version (version_num varchar(32) PRIMARY KEY)")
            )
            await connection.execute(text("INSERT INTO alembic_version VALUES ('f00dcafe9999')"))
        with pytest.raises(SchemaMismatchError) as raised:
            await ensure_schema_current(engine)
    finally:
        await engine.dispose()
    message = str(raised.value)
    assert "revision f00dcafe9999 is unknown to this build" in message
    assert f"expected head {head_revision()}" in message
    assert "rememberstack migrate" in message
