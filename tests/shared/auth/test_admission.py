"""Admission per credential: rate and in-flight limits, reads and writes apart, stream caps."""

from __future__ import annotations

import pytest

from shared.auth.admission import AdmissionController, Limits
from shared.errors import ResourceExhausted


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _controller(clock: Clock, **overrides: int) -> AdmissionController:
    return AdmissionController(
        read=Limits(rps=2.0, burst=2, in_flight=overrides.get("read_in_flight", 0)),
        write=Limits(rps=1.0, burst=1, in_flight=overrides.get("write_in_flight", 0)),
        watch_streams=overrides.get("watch", 2),
        clock=clock,
    )


def test_rate_limit_refuses_past_the_burst_and_says_when_to_retry():
    clock = Clock()
    admission = _controller(clock)
    admission.admit("key:a", "read").release()
    admission.admit("key:a", "read").release()
    with pytest.raises(ResourceExhausted) as refused:
        admission.admit("key:a", "read")
    assert refused.value.retry_after_seconds == pytest.approx(0.5)
    clock.now += 0.5
    admission.admit("key:a", "read").release()


def test_each_credential_and_each_class_has_its_own_budget():
    clock = Clock()
    admission = _controller(clock)
    admission.admit("key:a", "write").release()
    with pytest.raises(ResourceExhausted):
        admission.admit("key:a", "write")
    admission.admit("key:a", "read").release()  # reads are not spent by writes
    admission.admit("key:b", "write").release()  # nor is another credential's budget


def test_in_flight_limit_frees_a_slot_when_a_call_ends():
    clock = Clock()
    admission = _controller(clock, read_in_flight=1)
    first = admission.admit("key:a", "read")
    clock.now += 10
    with pytest.raises(ResourceExhausted) as refused:
        admission.admit("key:a", "read")
    assert refused.value.metadata["limit"] == "read_concurrency"
    first.release()
    first.release()  # idempotent: a second release frees nothing more
    admission.admit("key:a", "read")
    with pytest.raises(ResourceExhausted):
        admission.admit("key:a", "read")


def test_watch_streams_are_capped_by_count_not_by_reads_in_flight():
    clock = Clock()
    admission = _controller(clock, read_in_flight=1, watch=2)
    streams = [admission.admit("key:a", "watch") for _ in range(2)]
    clock.now += 10
    with pytest.raises(ResourceExhausted) as refused:
        admission.admit("key:a", "watch")
    assert "readiness streams" in refused.value.message
    admission.admit("key:a", "read")  # open streams leave the read slot free
    streams[0].release()
    admission.admit("key:a", "watch")
