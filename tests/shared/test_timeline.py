"""The timeline of one slot: supersession, conflicts and concurrency from the set of values."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.beliefs.timeline import Placement, SlotMember, place


def _at(month: int, day: int = 1, year: int = 2026) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


def _member(
    value: str,
    start: datetime | None = None,
    said: datetime | None = None,
    *,
    until: datetime | None = None,
    precision: str = "month",
    concurrent: bool = False,
    change: bool = False,
    cancels: bool = False,
) -> SlotMember:
    return SlotMember(
        fact_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{value}|{start}|{said}|{until}"),
        value=value,
        stated_from=start,
        stated_until=until,
        precision=precision,
        said_first=said,
        order_key=value,
        concurrent=concurrent,
        announces_change=change,
        cancels=cancels,
    )


def test_a_later_start_closes_the_earlier_value_at_that_start() -> None:
    acme, globex = _member("acme", _at(1)), _member("globex", _at(6))
    placed = place([globex, acme])
    assert placed[acme.fact_id].valid_until == _at(6)
    assert placed[acme.fact_id].superseded_by == globex.fact_id
    assert (placed[globex.fact_id].valid_until, placed[globex.fact_id].precision) == (None, "open")


def test_a_value_arriving_late_with_an_older_start_resplits_the_chain() -> None:
    ten, twelve, eight = (
        _member("$10", _at(1)),
        _member("$12", _at(6)),
        _member("$8", _at(3, 1, 2025)),
    )
    placed = place([ten, twelve, eight])
    assert placed[eight.fact_id].valid_until == _at(1)
    assert placed[ten.fact_id].valid_until == _at(6)
    assert placed[twelve.fact_id].valid_until is None


def test_values_stated_for_the_same_start_conflict() -> None:
    a, b = _member("40 people", _at(3)), _member("45 people", _at(3))
    placed = place([a, b])
    assert placed[a.fact_id].rivals == {b.fact_id}
    assert placed[b.fact_id].rivals == {a.fact_id}
    assert placed[a.fact_id].superseded_by is None


def test_a_concurrent_value_neither_supersedes_nor_conflicts() -> None:
    main, side = _member("acme", _at(1)), _member("globex", _at(6), concurrent=True)
    placed = place([main, side])
    assert placed[main.fact_id] == Placement(_at(1), None, "open", None, frozenset())
    assert placed[side.fact_id].rivals == frozenset()


def test_a_stated_end_before_the_successor_keeps_its_own_end_and_names_the_successor() -> None:
    # "left Acme in March … starting at Globex in June": Globex is the next employer.
    a = _member("acme", _at(1), until=_at(3))
    b = _member("globex", _at(6))
    assert place([a, b])[a.fact_id] == Placement(_at(1), _at(3), "month", b.fact_id, frozenset())
    assert place([a, b])[b.fact_id].superseded_by is None


@pytest.mark.parametrize("end_month", [6, 7])
def test_an_end_at_or_after_the_successor_s_start_is_superseded_by_it(end_month: int) -> None:
    # "moves from Customer Success to Sales Engineering effective June": one move, two claims.
    a = _member("acme", _at(1), until=_at(end_month))
    b = _member("globex", _at(6))
    assert place([a, b])[a.fact_id] == Placement(_at(1), _at(6), "month", b.fact_id, frozenset())


def test_an_undated_value_said_before_a_dated_one_is_closed_at_its_start() -> None:
    old = _member("acme", None, said=_at(1))
    new = _member("globex", _at(6), said=_at(7))
    placed = place([old, new])
    assert (placed[old.fact_id].valid_until, placed[old.fact_id].superseded_by) == (
        _at(6),
        new.fact_id,
    )


@pytest.mark.parametrize("ended_year", [2024, 2025])
def test_a_value_that_had_ended_before_an_undated_one_was_said_comes_before_it(
    ended_year: int,
) -> None:
    # "The plan costs $20" said in January 2026; "back in 2024 it was $15" said in July: the
    # old value ended before $20 was said to hold, so it cannot be what closed $20.
    twenty = _member("$20", None, said=_at(1, 10))
    fifteen = _member(
        "$15", _at(1, 1, ended_year), said=_at(7), until=_at(1, 1, ended_year + 1), precision="year"
    )
    twenty_five = _member("$25", _at(6), said=_at(6, 2))
    placed = place([twenty_five, fifteen, twenty])
    assert placed[twenty.fact_id].valid_until == _at(6)
    assert placed[twenty.fact_id].superseded_by == twenty_five.fact_id
    assert placed[fifteen.fact_id].superseded_by == twenty.fact_id
    assert placed[fifteen.fact_id].valid_until == _at(1, 1, ended_year + 1)
    assert not any(p.rivals for p in placed.values())


def test_a_dated_value_still_running_when_the_undated_one_was_said_closes_it() -> None:
    # An end after the undated value was said: that value held until the dated one began.
    undated = _member("$20", None, said=_at(1, 10))
    dated = _member("$15", _at(1, 1, 2025), said=_at(7), until=_at(3), precision="month")
    placed = place([undated, dated])
    assert placed[undated.fact_id].valid_until == _at(1, 1, 2025)
    assert placed[undated.fact_id].superseded_by == dated.fact_id


def test_an_undated_change_said_later_supersedes_with_an_unknown_end() -> None:
    old = _member("acme", None, said=_at(1))
    new = _member("globex", None, said=_at(5), change=True)
    placed = place([old, new])
    assert placed[old.fact_id].superseded_by == new.fact_id
    assert placed[old.fact_id].valid_until is None
    assert placed[new.fact_id].superseded_by is None


def test_undated_rivals_said_in_one_week_without_a_change_conflict() -> None:
    a = _member("acme", None, said=_at(1, 5))
    b = _member("globex", None, said=_at(1, 12))
    placed = place([a, b])
    assert placed[a.fact_id].rivals == {b.fact_id}


@pytest.mark.parametrize("months", [2, 3, 11])
def test_undated_rivals_said_weeks_apart_succeed_each_other(months: int) -> None:
    # "Acme Tooling has 120 seats" in January, "has 200 seats" months later: a change.
    old, new = _member("120", None, said=_at(1)), _member("200", None, said=_at(1 + months))
    for members in ([old, new], [new, old]):
        placed = place(members)
        assert placed[old.fact_id].superseded_by == new.fact_id
        assert placed[new.fact_id].superseded_by is None
        assert placed[old.fact_id].rivals == placed[new.fact_id].rivals == frozenset()


def test_an_undated_value_that_has_ended_does_not_conflict_with_one_that_holds() -> None:
    # "Anya Roth, formerly of Birch Labs, leads research at Tessel" (one claim, one said-on).
    birch = _member("birch", None, said=_at(2), until=_at(2), precision="unknown")
    tessel = _member("tessel", None, said=_at(2))
    placed = place([birch, tessel])
    assert placed[birch.fact_id].rivals == frozenset()
    assert placed[tessel.fact_id].rivals == frozenset()
    assert placed[birch.fact_id].valid_until == _at(2)
    assert placed[tessel.fact_id].valid_until is None


def test_an_ended_value_is_succeeded_by_the_change_said_with_its_end() -> None:
    # "Dana Reyes has left Finch & Co. She is now a partner at Lumen Advisory" (one said-on).
    finch = _member("finch", None, said=_at(5), until=_at(5), precision="unknown")
    lumen = _member("lumen", None, said=_at(5), change=True)
    placed = place([finch, lumen])
    assert placed[finch.fact_id].superseded_by == lumen.fact_id
    assert placed[finch.fact_id].valid_until == _at(5)
    assert placed[lumen.fact_id].superseded_by is None
    assert placed[lumen.fact_id].rivals == frozenset()


def test_a_holding_value_is_not_succeeded_by_a_change_said_at_the_same_time() -> None:
    # Without an end, the same said-on time says nothing about which came first.
    a = _member("acme", None, said=_at(5))
    b = _member("globex", None, said=_at(5), change=True)
    assert place([a, b])[a.fact_id].superseded_by is None


_MEMBERS = st.lists(
    st.builds(
        _member,
        st.sampled_from(["a", "b", "c", "d"]),
        st.one_of(st.none(), st.integers(1, 12).map(_at)),
        st.one_of(st.none(), st.integers(1, 12).map(lambda m: _at(m, 15))),
        change=st.booleans(),
        concurrent=st.booleans(),
    ),
    max_size=7,
    unique_by=lambda m: m.fact_id,
)


@settings(max_examples=200, deadline=None)
@given(_MEMBERS, st.randoms())
def test_the_placement_is_a_function_of_the_set_not_its_order(
    members: list[SlotMember], shuffler: object
) -> None:
    shuffled = list(members)
    shuffler.shuffle(shuffled)  # type: ignore[attr-defined]
    assert place(shuffled) == place(members)


@settings(max_examples=200, deadline=None)
@given(_MEMBERS)
def test_windows_are_well_formed_and_conflicts_symmetric(members: list[SlotMember]) -> None:
    placed = place(members)
    for fact_id, p in placed.items():
        if p.valid_from is not None and p.valid_until is not None:
            assert p.valid_from <= p.valid_until
        for rival in p.rivals:
            assert fact_id in placed[rival].rivals


def test_a_slot_member_takes_the_start_its_latest_testimony_states() -> None:
    from shared.beliefs.slots import SlotKey, _Stored

    def stored(starts: list[tuple[datetime, str, datetime | None]]) -> _Stored:
        fact = uuid.uuid4()
        return _Stored(
            fact,
            SlotKey(slot_id=fact),
            "v",
            "l",
            (None, None, "unknown"),
            None,
            None,
            starts,
            [],
            [],
        )

    first, correction = (_at(4), "day", _at(4)), (_at(4).replace(day=7), "day", _at(5))
    for order in ([first, correction], [correction, first]):
        assert stored(order).member().stated_from == _at(4).replace(day=7)
    same_time = [(_at(3), "month", _at(5)), (_at(2), "month", _at(5))]
    assert stored(same_time).member().stated_from == _at(2)


def test_a_later_start_past_the_stated_end_does_not_turn_the_window_inside_out() -> None:
    from shared.beliefs.slots import SlotKey, _Stored

    fact = uuid.uuid4()
    item = _Stored(
        fact, SlotKey(slot_id=fact), "v", "l", (None, None, "unknown"), None, None,
        [(_at(1), "month", _at(1)), (_at(7), "month", _at(8))], [(_at(3), "month")], [],
    )  # fmt: skip
    member = item.member()
    assert member.stated_from == _at(1) and member.stated_until == _at(3)


@pytest.mark.parametrize(
    ("called_off_on", "until"),
    [
        (_at(4, 20), _at(5, 12)),  # before it was due: it never held
        (_at(5, 14), _at(5, 14)),  # while it ran: held until it was called off
        (_at(6, 1), _at(5, 12)),  # after it was over: it did not happen either
    ],
)
def test_a_cancellation_said_later_supersedes_the_dated_plan(
    called_off_on: datetime, until: datetime
) -> None:
    plan = _member("offsite 12-20 May", _at(5, 12), _at(4, 1), until=_at(5, 20), precision="day")
    off = _member("called off", said=called_off_on, cancels=True, change=True)
    placed = place([off, plan])
    assert placed[plan.fact_id].superseded_by == off.fact_id
    assert (placed[plan.fact_id].valid_from, placed[plan.fact_id].valid_until) == (
        _at(5, 12),
        until,
    )
    assert not placed[plan.fact_id].rivals and not placed[off.fact_id].rivals
    assert placed[off.fact_id].superseded_by is None


def test_a_cancellation_said_before_the_plan_calls_nothing_off() -> None:
    off = _member("called off", said=_at(3, 1), cancels=True, change=True)
    plan = _member("offsite 12 May", _at(5, 12), _at(4, 1), until=_at(5, 12), precision="day")
    placed = place([off, plan])
    assert placed[plan.fact_id].superseded_by is None
