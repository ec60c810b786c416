"""Per-stage progress of ingested versions, as `rememberstack ingest` shows it."""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType

from rememberstack.v1 import document_pb2
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn

__all__ = ["STAGES", "StageProgress", "stage_counts"]

STAGES: tuple[tuple[int, str], ...] = (
    (document_pb2.STAGE_CONVERT, "convert"),
    (document_pb2.STAGE_CHUNK, "chunk"),
    (document_pb2.STAGE_EXTRACT, "extract"),
    (document_pb2.STAGE_EMBED, "embed"),
    (document_pb2.STAGE_ADJUDICATE, "adjudicate"),
)
_DONE = frozenset({document_pb2.STAGE_STATUS_SUCCEEDED, document_pb2.STAGE_STATUS_SKIPPED})


def stage_counts(
    states: Sequence[document_pb2.VersionReadiness],
) -> dict[str, tuple[int, int, int]]:
    """Per stage: versions done (succeeded or skipped), retrying, and dead-lettered."""
    counts: dict[str, tuple[int, int, int]] = {}
    for stage, name in STAGES:
        done = retrying = dead = 0
        for state in states:
            status = next((s.status for s in state.stages if s.stage == stage), None)
            done += status in _DONE
            retrying += status == document_pb2.STAGE_STATUS_FAILED
            dead += status == document_pb2.STAGE_STATUS_DEAD_LETTER
        counts[name] = (done, retrying, dead)
    return counts


class StageProgress:
    """One bar per pipeline stage, counting the versions that finished it."""

    def __init__(self, console: Console, total: int, *, disable: bool = False) -> None:
        self._total = total
        self._progress = Progress(
            TextColumn("{task.description:<24}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            console=console,
            disable=disable,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> StageProgress:
        self._progress.__enter__()
        for _, name in STAGES:
            self._tasks[name] = self._progress.add_task(name, total=self._total)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._progress.__exit__(kind, error, trace)

    def show(self, states: Sequence[document_pb2.VersionReadiness]) -> None:
        for name, (done, retrying, dead) in stage_counts(states).items():
            notes = [f"{retrying} retrying"] if retrying else []
            notes += [f"{dead} dead letter"] if dead else []
            label = f"{name} ({', '.join(notes)})" if notes else name
            self._progress.update(self._tasks[name], completed=done, description=label)
