"""Session-wide database fixtures: one embedded PostgreSQL, migrated to head, shared by all tests.

Tests never truncate: each takes a fresh `namespace` and only reads and writes rows in it.
Queue tests also use kinds unique to their namespace, because workers claim across namespaces.
Subfolders add their own fixtures in their own conftest.py files.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from shared.db.embedded import EmbeddedPostgres
from shared.db.engine import create_engine
from shared.db.engine import session_factory as make_session_factory
from shared.db.migrate import upgrade_to_head
from tests.support.llama import LlamaServer, running_llama_server


@pytest.fixture(scope="session")
def embedded_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedPostgres]:
    """A real PostgreSQL 16 + pgvector server (pgserver) in a temporary directory."""
    server = EmbeddedPostgres(tmp_path_factory.mktemp("postgres") / "data")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
async def database_url(embedded_postgres: EmbeddedPostgres) -> str:
    """Socket URI of the session database, migrated to this build's head."""
    url = embedded_postgres.url
    await upgrade_to_head(url)
    return url


@pytest.fixture(scope="session")
async def db_engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(database_url)
    yield engine
    await engine.dispose()


@pytest.fixture(scope="session")
def session_factory(db_engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return make_session_factory(db_engine)


@pytest.fixture
def namespace() -> str:
    """A namespace no other test uses."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaServer]:
    """A real llama.cpp chat server (tests marked `llm`; `make test-llm` installs it)."""
    with running_llama_server() as server:
        yield server
