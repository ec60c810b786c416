"""The layer rules: a service's core never imports wire types; statements run in named rooms.

Only a service's edge modules (servicer, converters, responses, app, __main__) may import the
generated messages (`rememberstack.v1`), `grpc`, `shared.grpc` or `shared.proto_convert`;
everything else under services/<name>/ works on domain values. Imports are read with `ast`,
so an import inside a function, a relative import or `from shared import grpc` counts too.
In query and graph, statements run only from the modules named for them (services/query/sql/,
services/graph/repository.py), so a reader knows from the path where a read touches the database.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICES = ROOT / "services"
EDGE_MODULES = frozenset({"servicer.py", "converters.py", "responses.py", "app.py", "__main__.py"})
WIRE_MODULES = ("rememberstack.v1", "grpc", "shared.grpc", "shared.proto_convert")


def _is_wire(module: str) -> bool:
    return any(module == wire or module.startswith(wire + ".") for wire in WIRE_MODULES)


def _imported_from(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a `from ... import` reads from (relative ones resolved)."""
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def wire_imports(source: str, package: str) -> list[str]:
    """Every import of a wire module in `source` (a module of `package`), as `line: statement`."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if _is_wire(a.name)]
        elif isinstance(node, ast.ImportFrom):
            module = _imported_from(node, package)
            for alias in node.names:
                if _is_wire(module) or _is_wire(f"{module}.{alias.name}"):
                    written = "." * node.level + (node.module or "")
                    found.append(f"{node.lineno}: from {written} import {alias.name}")
    return found


def _core_modules(service: Path) -> list[Path]:
    return sorted(p for p in service.rglob("*.py") if p.name not in EDGE_MODULES)


def _package(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).parent.parts)


_SERVICE_DIRS = sorted(p for p in SERVICES.iterdir() if (p / "__init__.py").exists())


def test_every_service_is_checked() -> None:
    names = {p.name for p in _SERVICE_DIRS}
    assert {"ingest", "adjudicator", "query", "graph"} <= names, names


@pytest.mark.parametrize("service", _SERVICE_DIRS, ids=lambda p: p.name)
def test_core_modules_of_a_service_import_no_wire_types(service: Path) -> None:
    modules = _core_modules(service)
    assert any(p.name == "service.py" for p in modules), f"no core modules found in {service}"
    offences = [
        f"{path.relative_to(ROOT)}:{found}"
        for path in modules
        for found in wire_imports(path.read_text(encoding="utf-8"), _package(path))
    ]
    assert not offences, (
        "core modules import wire types (only servicer/converters/responses/app/__main__ may):\n"
        + "\n".join(offences)
    )


@pytest.mark.parametrize(
    "source",
    [
        "from rememberstack.v1 import fact_pb2",
        "import rememberstack.v1.fact_pb2 as fact_pb2",
        "from rememberstack.v1.common_pb2 import Negative",
        "import grpc",
        "import grpc.aio",
        "from grpc import StatusCode",
        "from shared.grpc.server import GrpcServer",
        "from shared import grpc",
        "from shared.proto_convert import timestamp",
        "from shared import proto_convert",
        "def late():\n    from shared.proto_convert import timestamp",
    ],
)
def test_a_wire_import_in_any_form_is_found(source: str) -> None:
    assert wire_imports(source, "services.query.reads")


@pytest.mark.parametrize(
    "source",
    [
        "from shared.answers import NegativeAnswer",
        "import grpcio_tools_lookalike",
        "from shared.errors import NotFound",
        "from rememberstack_client import connect",
        "from .domain import FactView",
    ],
)
def test_a_core_import_is_not_taken_for_a_wire_import(source: str) -> None:
    assert not wire_imports(source, "services.query.reads")


# Where each read service's statements may run, relative to services/<name>/.
SQL_ROOMS = {"query": ("sql/",), "graph": ("repository.py",)}
_STATEMENT_CALLS = frozenset(
    {
        "execute",
        "executemany",
        "exec_driver_sql",
        "fetch",
        "fetchrow",
        "fetchval",
        "scalar",
        "scalars",
        "stream",
    }
)
_STATEMENT_BUILDERS = frozenset({"text", "select", "insert", "update", "delete", "func"})


def statement_uses(source: str) -> list[str]:
    """Every statement run or built in `source`: a call of a statement-running method, an
    import of asyncpg or of SQLAlchemy's statement builders, as `line: what`."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _STATEMENT_CALLS:
                found.append(f"{node.lineno}: calls .{node.func.attr}()")
        elif isinstance(node, ast.Import):
            found += [
                f"{node.lineno}: import {a.name}"
                for a in node.names
                if a.name.split(".")[0] == "asyncpg" or a.name.startswith("sqlalchemy.sql")
            ]
        elif isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            for alias in node.names:
                if (
                    root == "asyncpg"
                    or node.module.startswith("sqlalchemy.sql")
                    or (node.module == "sqlalchemy" and alias.name in _STATEMENT_BUILDERS)
                ):
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")
    return found


@pytest.mark.parametrize("service", sorted(SQL_ROOMS))
def test_statements_of_a_read_service_run_only_in_its_sql_rooms(service: str) -> None:
    base = SERVICES / service
    rooms = SQL_ROOMS[service]
    outside = [
        p
        for p in sorted(base.rglob("*.py"))
        if not p.relative_to(base).as_posix().startswith(rooms)
    ]
    assert len(outside) > 3, f"too few modules found in {base}"
    offences = [
        f"{path.relative_to(ROOT)}:{found}"
        for path in outside
        for found in statement_uses(path.read_text(encoding="utf-8"))
    ]
    assert not offences, (
        f"statements outside {', '.join(rooms)} of services/{service}:\n" + "\n".join(offences)
    )


@pytest.mark.parametrize(
    "source",
    [
        "async def f(conn):\n    await conn.execute(q)",
        "async def f(driver):\n    return await driver.fetchval(q)",
        "from sqlalchemy import text",
        "import asyncpg",
        "from sqlalchemy.sql import select",
    ],
)
def test_a_statement_in_any_form_is_found(source: str) -> None:
    assert statement_uses(source)
