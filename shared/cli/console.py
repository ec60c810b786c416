"""The CLI's consoles and how a command body's RPC errors become messages and exit codes."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import grpc
import typer
from rich.console import Console

from shared.grpc.errors import parse_rich_error

__all__ = ["START_HINT", "console", "errors", "run_command"]

console = Console()
# Errors and hints go to stderr, so `--json` output on stdout stays parseable.
errors = Console(stderr=True)
T = TypeVar("T")

START_HINT = (
    "Start the system with `rememberstack up` (in another terminal), or point "
    "REMEMBERSTACK_<SERVICE>_ADDRESS (e.g. REMEMBERSTACK_QUERY_ADDRESS) at a running one."
)


def run_command(coroutine: Coroutine[Any, Any, T], addresses: dict[str, str] | None = None) -> T:
    """Run a command body, turning RPC errors into readable messages and exit code 1."""
    try:
        return asyncio.run(coroutine)
    except grpc.aio.AioRpcError as error:
        code, reason, violations = parse_rich_error(error)
        if code == grpc.StatusCode.UNAVAILABLE and reason is None:
            # No ErrorInfo: the call never reached a RememberStack service.
            tried = ", ".join(f"{n} at {a}" for n, a in (addresses or {}).items())
            errors.print(f"[red]cannot reach RememberStack[/] ({tried or error.details()})")
            errors.print(START_HINT, highlight=False)
            raise typer.Exit(1) from None
        errors.print(f"[red]{code.name}[/] {error.details()} {f'({reason})' if reason else ''}")
        for violation in violations:
            errors.print(f"  {violation.field}: {violation.description}")
        raise typer.Exit(1) from None
