"""The Postgres work queue: enqueue, claim with SKIP LOCKED, retry with back-off, and a Worker.

`items` holds the statements on one item, `dead_letters` the dead-letter reads and replay,
`worker` the loop that runs a handler on each claimed item. Callers import from here.
"""

from shared.db.queue.dead_letters import dead_lettered_versions, dead_letters, replay_dead_letters
from shared.db.queue.items import (
    BACKOFF_BASE_SECONDS,
    BACKOFF_CAP_SECONDS,
    NOTIFY_CHANNEL,
    FailureHook,
    Handler,
    LeaseLostError,
    Preference,
    backoff_seconds,
    claim,
    complete,
    enqueue,
    fail,
    least_overlap_preference,
    oldest_runnable,
    record_result,
)
from shared.db.queue.worker import Worker

__all__ = [
    "BACKOFF_BASE_SECONDS",
    "BACKOFF_CAP_SECONDS",
    "NOTIFY_CHANNEL",
    "FailureHook",
    "Handler",
    "LeaseLostError",
    "Preference",
    "Worker",
    "backoff_seconds",
    "claim",
    "complete",
    "dead_lettered_versions",
    "dead_letters",
    "enqueue",
    "fail",
    "least_overlap_preference",
    "oldest_runnable",
    "record_result",
    "replay_dead_letters",
]
