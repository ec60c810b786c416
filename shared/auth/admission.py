"""Per-credential admission: a token bucket of call starts and a cap on calls in flight,
separately for reads and writes, and a cap on open readiness streams."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from shared.auth.rpc_policy import Admission
from shared.errors import ResourceExhausted

__all__ = ["AdmissionController", "Limits", "Ticket"]

# A full call slot frees when some call ends; callers cannot know when, so suggest a short wait.
_IN_FLIGHT_RETRY_SECONDS = 0.25
_STREAM_RETRY_SECONDS = 5.0
# Idle principals are forgotten once there are this many, so unbounded JWT subjects cost
# bounded memory.
_PRUNE_ABOVE = 4096


@dataclass(frozen=True, slots=True)
class Limits:
    """``rps``/``burst``: the token bucket (0 rps = no rate limit); ``in_flight``: concurrent
    calls (0 = unbounded)."""

    rps: float
    burst: int
    in_flight: int


@dataclass(slots=True)
class _State:
    tokens: float
    refilled_at: float
    in_flight: int = 0


class Ticket:
    """An admitted call; ``release()`` (idempotent) when it ends."""

    __slots__ = ("_state",)

    def __init__(self, state: _State | None) -> None:
        self._state = state

    def release(self) -> None:
        state, self._state = self._state, None
        if state is not None:
            state.in_flight -= 1


class AdmissionController:
    """Decides, per principal name, whether a call may start now (one process's view).

    ``watch`` streams share the read token bucket but are counted by their own cap instead of
    by reads in flight: they are open for minutes while a read lasts milliseconds.
    """

    def __init__(
        self,
        *,
        read: Limits,
        write: Limits,
        watch_streams: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._limits = {"read": read, "write": write}
        self._watch_streams = watch_streams
        self._clock = clock
        self._buckets: dict[tuple[str, str], _State] = {}
        self._slots: dict[tuple[str, Admission], _State] = {}

    def admit(self, principal: str, admission: Admission) -> Ticket:
        """A ticket for one call, or ResourceExhausted with the time after which to retry."""
        rate_class = "write" if admission == "write" else "read"
        limits = self._limits[rate_class]
        self._prune()
        if admission == "watch":
            cap, retry = self._watch_streams, _STREAM_RETRY_SECONDS
        else:
            cap, retry = limits.in_flight, _IN_FLIGHT_RETRY_SECONDS
        slot = self._slots.setdefault((principal, admission), _State(0.0, 0.0))
        if cap and slot.in_flight >= cap:
            what = "open readiness streams" if admission == "watch" else f"{rate_class}s in flight"
            raise ResourceExhausted(
                f"admission limit: {cap} {what} per credential; retry later",
                retry_after_seconds=retry,
                metadata={"limit": f"{admission}_concurrency"},
            )
        if limits.rps:
            self._take_token(principal, rate_class, limits)
        slot.in_flight += 1
        return Ticket(slot)

    def _take_token(self, principal: str, rate_class: str, limits: Limits) -> None:
        now = self._clock()
        capacity = float(max(limits.burst, 1))
        bucket = self._buckets.setdefault((principal, rate_class), _State(capacity, now))
        bucket.tokens = min(capacity, bucket.tokens + (now - bucket.refilled_at) * limits.rps)
        bucket.refilled_at = now
        if bucket.tokens < 1.0:
            raise ResourceExhausted(
                f"admission limit: {limits.rps:g} {rate_class}s per second per credential",
                retry_after_seconds=(1.0 - bucket.tokens) / limits.rps,
                metadata={"limit": f"{rate_class}_rate"},
            )
        bucket.tokens -= 1.0

    def _prune(self) -> None:
        if len(self._slots) > _PRUNE_ABOVE:
            self._slots = {k: s for k, s in self._slots.items() if s.in_flight}
        if len(self._buckets) > _PRUNE_ABOVE:
            now = self._clock()
            self._buckets = {
                key: state for key, state in self._buckets.items() if now - state.refilled_at < 60.0
            }
