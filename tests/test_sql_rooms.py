"""SQL statements run only from modules whose name says so (issue 21, "SQL in named rooms").

A module may execute statements when its name contains `repository`, when it is or sits in a
package named `sql`, or when it is part of the database package itself (`shared/db/`: engine,
models, migrations, queue, statistics, change feed, ...). Everything else calls named functions
of those modules, so a reader knows from a path alone whether a line can touch the database.
"""

from __future__ import annotations

import ast
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("services", "shared")

# Methods that send a statement, whatever object they are called on (a session, a connection,
# a DBAPI cursor, a migration's `op`).
STATEMENT_METHODS = frozenset(
    {"execute", "executemany", "exec_driver_sql", "scalar", "scalars", "stream", "stream_scalars"}
)
# ORM unit-of-work calls that read or write rows; only counted on a receiver named like a
# session (`session`, `self._session`), since `get`, `add` and `delete` are common elsewhere.
SESSION_METHODS = frozenset({"add", "add_all", "delete", "flush", "get", "merge", "refresh"})

# Exceptions to the rule, each with its reason: none since issue 21 merged. An entry whose
# module no longer holds a statement fails the second test, so the list can only shrink.
TEMPORARILY_ALLOWED: frozenset[str] = frozenset()


def is_sql_room(path: PurePosixPath) -> bool:
    """Whether a module (path relative to the repository root) may run statements."""
    return (
        path.parts[:2] == ("shared", "db")
        or "repository" in path.stem
        or path.stem == "sql"
        or "sql" in path.parts[:-1]
    )


def _text_names(tree: ast.Module) -> set[str]:
    """Local names bound to `sqlalchemy.text` (`from sqlalchemy import text [as t]`)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy")
        for alias in node.names
        if alias.name == "text"
    }


def _is_session(receiver: ast.expr) -> bool:
    name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return str(name).lstrip("_").endswith("session")


def statements_in(source: str, filename: str = "<module>") -> list[tuple[int, str]]:
    """(line, what) of every statement call and every `text(...)` SQL built in the source."""
    tree = ast.parse(source, filename)
    text_names = _text_names(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr in STATEMENT_METHODS or (
                func.attr in SESSION_METHODS and _is_session(func.value)
            ):
                found.append((node.lineno, f".{func.attr}("))
            elif func.attr == "text" and ast.unparse(func.value) in {"sqlalchemy", "sa"}:
                found.append((node.lineno, "text("))
        elif isinstance(func, ast.Name) and func.id in text_names:
            found.append((node.lineno, "text("))
    return sorted(found)


def _modules() -> list[PurePosixPath]:
    return sorted(
        PurePosixPath(path.relative_to(ROOT).as_posix())
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
    )


def _statements(module: PurePosixPath) -> list[tuple[int, str]]:
    return statements_in((ROOT / module).read_text(), str(module))


def test_statements_run_only_in_repository_sql_or_database_modules() -> None:
    offences = [
        f"{module}:{line}: {what}"
        for module in _modules()
        if not is_sql_room(module) and str(module) not in TEMPORARILY_ALLOWED
        for line, what in _statements(module)
    ]
    assert offences == [], (
        "statements outside a repository / sql / shared.db module (move them into one and call"
        " it by name):\n" + "\n".join(offences)
    )


def test_sql_allowlist_lists_only_modules_that_still_hold_statements() -> None:
    stale = [
        module
        for module in sorted(TEMPORARILY_ALLOWED)
        if not (ROOT / module).exists() or not _statements(PurePosixPath(module))
    ]
    assert stale == [], f"remove from TEMPORARILY_ALLOWED (no statements left): {stale}"


def test_a_statement_in_a_domain_module_is_found_and_named_by_line() -> None:
    source = (
        "from sqlalchemy import text as sql_text\n"
        "async def load(session, conn):\n"
        "    await session.execute(sql_text('SELECT 1'))\n"
        "    await conn.scalars(q)\n"
        "    session.add(row)\n"
        "    cache.get(key)\n"
    )
    assert statements_in(source) == [(3, ".execute("), (3, "text("), (4, ".scalars("), (5, ".add(")]


def test_repository_sql_and_database_modules_are_rooms_and_others_are_not() -> None:
    rooms = [
        "services/adjudicator/candidates_repository.py",
        "services/query/sql/facts.py",
        "shared/beliefs/sql.py",
        "shared/db/queue/items.py",
    ]
    assert all(is_sql_room(PurePosixPath(path)) for path in rooms)
    assert not is_sql_room(PurePosixPath("shared/beliefs/slots.py"))
    assert not is_sql_room(PurePosixPath("services/query/sqlite_cache.py"))
