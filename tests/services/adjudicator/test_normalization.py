"""Normalization of claims into relations and observations over the predicate vocabulary."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from services.adjudicator.domain import (
    ClaimView,
    EntityRef,
    ExtraRelation,
    Polarity,
    Window,
)
from services.adjudicator.normalization import (
    CORE_PREDICATES,
    Normalizer,
    PredicateVocabulary,
    synonym_phrases,
)

ENTITIES = {
    name.lower(): EntityRef(f"ent-{i}", name)
    for i, name in enumerate(
        [
            "Ravi",
            "Billing migration",
            "Dana",
            "Head of Product",
            "Priya Nair",
            "Northwind",
            "Lisbon",
            "Tomasz",
            "Ledger API",
            "Search team",
            "Schema change",
            "Q3 launch",
        ]
    )
}


def resolve(text: str) -> EntityRef | None:
    return ENTITIES.get(text.lower())


def claim(
    text: str,
    subject: str | None = None,
    predicate: str | None = None,
    obj: str | None = None,
    *,
    polarity: Polarity = "positive",
    holder: str | None = None,
    window: Window | None = None,
) -> ClaimView:
    return ClaimView(
        claim_id="claim-1",
        document_id="doc-1",
        claim_text=text,
        asserted_at=datetime(2026, 3, 2, tzinfo=UTC),
        polarity=polarity,
        is_attributed=holder is not None,
        holder=holder,
        subject_text=subject,
        predicate_text=predicate,
        object_text=obj,
        window=window or Window(),
        window_kind=None,
    )


def test_core_vocabulary_has_the_sixteen_spec_predicates() -> None:
    vocabulary = PredicateVocabulary()
    assert vocabulary.predicates == frozenset(CORE_PREDICATES)
    assert len(CORE_PREDICATES) == 16


def test_synonym_table_has_at_least_sixty_phrases() -> None:
    assert len(set(synonym_phrases())) >= 60


@pytest.mark.parametrize(
    ("phrase", "predicate"),
    [
        ("employed by", "works_for"),
        ("is employed by", "works_for"),
        ("works at", "works_for"),
        ("worked for", "works_for"),
        ("has been working on", "works_on"),
        ("is on the team of", "member_of"),
        ("joined", "works_for"),
        ("leads", "member_of"),
        ("lives in", "located_in"),
        ("is based in", "located_in"),
        ("co-founded", "founded"),
        ("wrote", "authored"),
        ("built", "created"),
        ("makes", "created"),
        ("uses", "uses"),
        ("relies on", "uses"),
        ("reports to", "reports_to"),
        ("knows", "knows"),
        ("attended", "participated_in"),
        ("took part in", "participated_in"),
        ("no longer works for", "works_for"),
        ("was acquired by", "part_of"),
        ("works_on", "works_on"),
    ],
)
def test_verb_phrase_maps_onto_core_predicate(phrase: str, predicate: str) -> None:
    assert PredicateVocabulary().normalize(phrase) == predicate


@pytest.mark.parametrize(
    ("phrase", "inverted", "phase"),
    [
        ("was laid off from", False, "end"),
        ("laid off", True, "end"),  # "Brightline laid off Ivo": the employer is the subject
        ("was let to go by", False, "end"),  # the parse of "was let go by Brightline"
        ("was fired by", False, "end"),
        ("fired", True, "end"),
        ("is moving over to", False, "start"),
        ("switched across to", False, "start"),
    ],
)
def test_being_let_go_ends_and_a_direction_particle_changes_nothing(
    phrase: str, inverted: bool, phase: str
) -> None:
    directed = PredicateVocabulary().normalize_directed(phrase)
    assert directed is not None
    assert (directed.predicate, directed.inverted, directed.phase) == ("works_for", inverted, phase)


@pytest.mark.parametrize("escape", ["other:sponsors", "other:co_chairs", "other:v2_migrates"])
def test_valid_other_escape_is_kept(escape: str) -> None:
    vocabulary = PredicateVocabulary()
    assert vocabulary.normalize(escape) == escape
    assert vocabulary.is_valid(escape)


@pytest.mark.parametrize(
    "escape",
    ["other:Sponsors", "other:x", "other:", "other:2fast", "other:has space", "other:" + "a" * 42],
)
def test_invalid_other_escape_is_dropped(escape: str) -> None:
    vocabulary = PredicateVocabulary()
    assert vocabulary.normalize(escape) is None
    assert not vocabulary.is_valid(escape)


@pytest.mark.parametrize(
    ("phrase", "predicate"),
    [
        ("blocks", "blocks"),
        ("is blocked by", "blocks"),
        ("depends on", "depends_on"),
        ("pursues", "pursues"),
    ],
)  # ("assigned to" has an escape without the pack: see the owner test below)
def test_work_pack_predicates_only_map_when_pack_enabled(phrase: str, predicate: str) -> None:
    assert PredicateVocabulary().normalize(phrase) is None
    assert PredicateVocabulary(["work"]).normalize(phrase) == predicate


def test_unknown_pack_is_refused() -> None:
    with pytest.raises(ValueError, match="legal"):
        PredicateVocabulary(["legal"])


def test_subject_predicate_object_claim_becomes_one_relation_with_model_free_label() -> None:
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(
            "Ravi has been working on the billing migration.",
            "Ravi",
            "has been working on",
            "Billing migration",
        ),
        resolve,
    )
    (relation,) = result.assertions
    assert relation.kind == "relation"
    assert relation.predicate == "works_on"
    assert (relation.subject_entity_id, relation.object_entity_id) == ("ent-0", "ent-1")
    assert relation.label == "Ravi works on Billing migration"
    assert result.dropped_predicates == ()


def test_reports_to_label_reads_as_spec_example() -> None:
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim("Dana reports to the Head of Product.", "Dana", "reports to", "Head of Product"),
        resolve,
    )
    assert [a.label for a in result.assertions] == ["Dana reports to Head of Product"]


def test_passive_phrase_swaps_subject_and_object() -> None:
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim("Northwind was founded by Priya Nair.", "Northwind", "was founded by", "Priya Nair"),
        resolve,
    )
    (relation,) = result.assertions
    assert relation.predicate == "founded"
    assert relation.subject_name == "Priya Nair"
    assert relation.object_name == "Northwind"
    assert relation.label == "Priya Nair founded Northwind"


def test_relation_label_never_contains_the_claims_dates() -> None:
    window = Window(datetime(2025, 11, 5, tzinfo=UTC), None, "day")
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(
            "Since 5 November 2025 Tomasz has lived in Lisbon.",
            "Tomasz",
            "has lived in",
            "Lisbon",
            window=window,
        ),
        resolve,
    )
    (relation,) = result.assertions
    assert relation.window == window
    assert not re.search(r"\d", relation.label)
    assert relation.label == "Tomasz is located in Lisbon"


def test_negated_relation_label_states_the_negation() -> None:
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(
            "Tomasz does not use the Ledger API.",
            "Tomasz",
            "does not use",
            "Ledger API",
            polarity="negative",
        ),
        resolve,
    )
    (relation,) = result.assertions
    assert relation.polarity == "negative"
    assert relation.label == "Tomasz does not use Ledger API"


def test_attributed_claim_becomes_observation_on_holder_not_on_topic() -> None:
    text = "Dana believes the Q3 launch date is too tight."
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(text, "Q3 launch", "is", "too tight", holder="Dana"), resolve
    )
    (observation,) = result.assertions
    assert observation.kind == "observation"
    assert observation.subject_entity_id == ENTITIES["dana"].id
    assert observation.statement == text
    assert observation.label == text


def test_attributed_claim_with_unknown_holder_yields_nothing() -> None:
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim("Someone said the Ledger API is slow.", "Ledger API", holder="a stranger"), resolve
    )
    assert result.assertions == ()


def test_value_claim_becomes_observation_with_statement_and_a_label_without_its_date() -> None:
    text = "The billing migration cutover is scheduled for 2026-06-08."
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(text, "Billing migration", "is scheduled for", "2026-06-08"), resolve
    )
    (observation,) = result.assertions
    assert observation.kind == "observation"
    assert observation.subject_entity_id == ENTITIES["billing migration"].id
    assert observation.statement == text
    assert observation.label == "The billing migration cutover is scheduled."
    assert result.dropped_predicates == ()


def test_observation_label_drops_relative_dates_and_keeps_the_statement() -> None:
    text = "Mel joined the payments team yesterday"
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(text, "Dana", "joined", "the payments team"), resolve
    )
    (observation,) = result.assertions
    assert observation.label == "Mel joined the payments team"
    assert observation.statement == text


def test_event_that_starts_a_state_relation_opens_the_relation_window() -> None:
    june = Window.from_claim_fields(datetime(2026, 6, 1, tzinfo=UTC), None, "month", "event_time")
    item = replace(
        claim("Ravi moved to the search team in June.", "Ravi", "moved to", "Search team"),
        window=june,
        window_kind="event_time",
    )
    (relation,) = Normalizer(PredicateVocabulary()).normalize_claim(item, resolve).assertions
    assert relation.predicate == "member_of"
    assert relation.window == Window(datetime(2026, 6, 1, tzinfo=UTC), None, "open")


def test_unknown_predicate_is_dropped_counted_and_statement_kept_as_observation() -> None:
    text = "Northwind sponsors the Q3 launch."
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(text, "Northwind", "sponsors", "Q3 launch"), resolve
    )
    assert result.dropped_predicates == ("sponsors",)
    assert [a.kind for a in result.assertions] == ["observation"]
    assert result.assertions[0].statement == text


def test_work_pack_predicate_without_pack_is_dropped_with_pack_is_relation() -> None:
    item = claim("The schema change blocks the Q3 launch.", "Schema change", "blocks", "Q3 launch")
    without = Normalizer(PredicateVocabulary()).normalize_claim(item, resolve)
    with_pack = Normalizer(PredicateVocabulary(["work"])).normalize_claim(item, resolve)
    assert without.dropped_predicates == ("blocks",)
    assert [a.kind for a in with_pack.assertions] == ["relation"]
    assert with_pack.assertions[0].label == "Schema change blocks Q3 launch"


def test_claim_without_resolvable_subject_or_fallback_yields_nothing() -> None:
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim("The weather was nice.", "the weather"), resolve
    )
    assert result.assertions == ()


def test_claim_without_resolvable_subject_is_observation_on_the_fallback_anchor() -> None:
    retro = EntityRef("ent-doc", "Payments retro")
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim("The team uses Northwind.", "the team", "uses", "Northwind"), resolve, retro
    )
    (observation,) = result.assertions
    assert observation.kind == "observation"
    assert observation.subject_entity_id == "ent-doc"
    assert observation.statement == "The team uses Northwind."


def test_attributed_claim_with_unknown_holder_is_observation_on_the_fallback_anchor() -> None:
    spec = EntityRef("ent-doc", "Billing migration spec")
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim("According to the spec, the Ledger API is slow.", "Ledger API", holder="the spec"),
        resolve,
        spec,
    )
    (observation,) = result.assertions
    assert observation.subject_entity_id == "ent-doc"


def test_claim_window_inclusive_end_becomes_half_open() -> None:
    # Extractors state the inclusive end as the last covered day ("January to March": Mar 31).
    window = Window.from_claim_fields(
        datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 3, 31, tzinfo=UTC), "month"
    )
    assert window.valid_until == datetime(2026, 4, 1, tzinfo=UTC)
    assert window.contains(datetime(2026, 3, 31, 23, tzinfo=UTC))
    assert not window.contains(datetime(2026, 4, 1, tzinfo=UTC))


def test_quarter_claim_window_ends_when_the_quarter_ends() -> None:
    q3 = Window.from_claim_fields(
        datetime(2026, 7, 1, tzinfo=UTC), datetime(2026, 9, 30, tzinfo=UTC), "quarter", "event_time"
    )
    assert q3 == Window(
        datetime(2026, 7, 1, tzinfo=UTC), datetime(2026, 10, 1, tzinfo=UTC), "quarter"
    )
    only_start = Window.from_claim_fields(
        datetime(2026, 7, 1, tzinfo=UTC), None, "quarter", "event_time"
    )
    assert only_start.valid_until == datetime(2026, 10, 1, tzinfo=UTC)


def test_event_day_window_covers_that_day_only_and_open_period_stays_open() -> None:
    day = Window.from_claim_fields(datetime(2026, 6, 8, tzinfo=UTC), None, "day", "event_time")
    ongoing = Window.from_claim_fields(
        datetime(2026, 6, 8, tzinfo=UTC), None, "day", "effective_period"
    )
    assert day.valid_until == datetime(2026, 6, 9, tzinfo=UTC)
    assert ongoing.valid_until is None
    assert not day.overlaps(Window(datetime(2026, 6, 9, tzinfo=UTC), None, "day"))
    assert ongoing.overlaps(Window(datetime(2027, 1, 1, tzinfo=UTC), None, "year"))


@pytest.mark.parametrize(
    ("phrase", "obj", "predicate"),
    [
        ("joined", "the Atlas project", "works_on"),
        ("moved to", "the billing migration", "works_on"),
        ("left", "the Orion rollout", "works_on"),
        ("joined", "Northwind", "works_for"),
        ("joined", "the search team", "member_of"),
        # working on a team is being on it, however the verb reads
        ("starts on", "the Growth team", "member_of"),
        ("works on", "the payments team", "member_of"),
        ("started on", "the data platform squad", "member_of"),
        ("works on", "the billing migration", "works_on"),
    ],
)
def test_a_placement_in_a_piece_of_work_is_working_on_it(
    phrase: str, obj: str, predicate: str
) -> None:
    directed = PredicateVocabulary().normalize_directed(phrase)
    assert directed is not None
    placed = directed.for_object(obj)
    assert placed is not None and placed.predicate == predicate


@pytest.mark.parametrize(("phrase", "phase"), [("migrate to", "start"), ("migrate from", "end")])
def test_a_migration_starts_using_the_new_system_and_ends_the_old(phrase: str, phase: str) -> None:
    directed = PredicateVocabulary().normalize_directed(phrase)
    assert directed is not None
    assert (directed.predicate, directed.phase) == ("uses", phase)


@pytest.mark.parametrize(
    ("phrase", "predicate", "phase"),
    [
        ("start as", "works_for", "start"),
        ("work as", "works_for", "state"),
        ("step back from", "works_for", "end"),
    ],
)
def test_taking_or_leaving_a_role_is_employment(phrase: str, predicate: str, phase: str) -> None:
    directed = PredicateVocabulary().normalize_directed(phrase)
    assert directed is not None
    assert (directed.predicate, directed.phase) == (predicate, phase)


@pytest.mark.parametrize("phrase", ["consult for", "advise", "freelance for"])
def test_advising_or_consulting_is_an_affiliation(phrase: str) -> None:
    directed = PredicateVocabulary().normalize_directed(phrase)
    assert directed is not None and directed.predicate == "affiliated_with"


@pytest.mark.parametrize(
    ("text", "subject", "predicate", "obj"),
    [
        ("Priya Nair now works for Northwind.", "Priya Nair", "works for", "Northwind"),
        ("These days Dana is on the search team.", "Dana", "is on", "Search team"),
        ("Tomasz is nowadays based in Lisbon.", "Tomasz", "is based in", "Lisbon"),
    ],
)
def test_a_state_said_to_hold_now_is_the_start_of_a_new_value(
    text: str, subject: str, predicate: str, obj: str
) -> None:
    (relation,) = (
        Normalizer(PredicateVocabulary())
        .normalize_claim(claim(text, subject, predicate, obj), resolve)
        .assertions
    )
    assert relation.kind == "relation"
    assert relation.phase == "start"


def test_a_state_without_now_stays_a_state_and_a_stance_said_now_starts() -> None:
    normalizer = Normalizer(PredicateVocabulary())
    (plain,) = normalizer.normalize_claim(
        claim("Priya Nair works for Northwind.", "Priya Nair", "works for", "Northwind"), resolve
    ).assertions
    assert plain.phase == "state"
    (stance,) = normalizer.normalize_claim(
        claim("Dana now supports the Q3 launch.", "Dana", "supports", "Q3 launch"), resolve
    ).assertions
    assert stance.kind == "observation"
    assert stance.phase == "start"


@pytest.mark.parametrize(
    ("text", "predicate", "polarity"),
    [
        ("Priya Nair left Northwind.", "left", "positive"),
        ("Priya Nair is no longer with Northwind.", "is with", "negative"),
        ("Priya Nair doesn't work for Northwind any more.", "work for", "negative"),
        ("Priya Nair no longer works at Northwind.", "works at", "negative"),
    ],
)
def test_an_undated_ending_closes_the_relation_by_the_time_it_was_said(
    text: str, predicate: str, polarity: Polarity
) -> None:
    (relation,) = (
        Normalizer(PredicateVocabulary())
        .normalize_claim(
            claim(text, "Priya Nair", predicate, "Northwind", polarity=polarity), resolve
        )
        .assertions
    )
    assert (relation.predicate, relation.polarity, relation.phase) == (
        "works_for",
        "positive",
        "end",
    )
    assert relation.window == Window(None, datetime(2026, 3, 2, tzinfo=UTC), "unknown")


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("After four years Priya Nair is leaving Northwind.", "leave"),
        ("Priya Nair will step down from Northwind.", "step down from"),
        ("Priya Nair is going to quit Northwind.", "quit"),
    ],
)
def test_a_departure_announced_ahead_ends_nothing_yet(text: str, predicate: str) -> None:
    """The said-on time is no end: the placement holds until a dated claim ends it."""
    (relation,) = (
        Normalizer(PredicateVocabulary())
        .normalize_claim(claim(text, "Priya Nair", predicate, "Northwind"), resolve)
        .assertions
    )
    assert (relation.predicate, relation.phase, relation.window) == ("works_for", "state", Window())


@pytest.mark.parametrize(
    ("text", "predicate", "expected"),
    [
        ("Priya Nair used to work for Northwind.", "use to work for", "works_for"),
        ("Priya Nair was previously at Northwind.", "use to be at", "works_for"),
        ("Priya Nair formerly led the Search team.", "use to lead", "member_of"),
        # "now" in the same claim is about its other relation, not this one
        ("Priya Nair, a former Northwind engineer, now consults.", "use to work for", "works_for"),
    ],
)
def test_a_relation_held_before_ends_by_the_time_it_was_said_unless_dated(
    text: str, predicate: str, expected: str
) -> None:
    obj = "Search team" if expected == "member_of" else "Northwind"
    normalizer = Normalizer(PredicateVocabulary())
    (undated,) = normalizer.normalize_claim(
        claim(text, "Priya Nair", predicate, obj), resolve
    ).assertions
    assert (undated.predicate, undated.polarity, undated.phase) == (expected, "positive", "end")
    assert undated.window == Window(None, datetime(2026, 3, 2, tzinfo=UTC), "unknown")
    # "previously worked at Northwind from 2019 to 2022": a stint with its own window
    stint = Window(datetime(2019, 1, 1, tzinfo=UTC), datetime(2022, 12, 31, tzinfo=UTC), "year")
    (dated,) = normalizer.normalize_claim(
        claim(text, "Priya Nair", predicate, obj, window=stint), resolve
    ).assertions
    assert (dated.predicate, dated.phase, dated.window) == (expected, "state", stint)


def test_a_plain_denial_stays_a_negative_relation() -> None:
    (relation,) = (
        Normalizer(PredicateVocabulary())
        .normalize_claim(
            claim(
                "Priya Nair does not work for Northwind.",
                "Priya Nair",
                "work for",
                "Northwind",
                polarity="negative",
            ),
            resolve,
        )
        .assertions
    )
    assert (relation.polarity, relation.phase) == ("negative", "state")


@pytest.mark.parametrize(
    ("text", "subject", "phrase", "obj"),
    [
        ("The Search team owns the Ledger API.", "Search team", "owns", "Ledger API"),
        ("The Ledger API is owned by the Search team.", "Ledger API", "is owned by", "Search team"),
        ("Search team took ownership of the Ledger API.", "Search team", "took ownership of",
         "Ledger API"),
        ("The Ledger API is assigned to the Search team.", "Ledger API", "is assigned to",
         "Search team"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("packs", [(), ("work",)])
def test_every_phrasing_of_an_owner_is_one_relation_of_the_owned_thing(
    text: str, subject: str, phrase: str, obj: str, packs: tuple[str, ...]
) -> None:
    # One slot whichever way a source put it, so a new owner supersedes the old one; without
    # the work pack the relation is the `other:owned_by` escape rather than dropped.
    result = Normalizer(PredicateVocabulary(packs)).normalize_claim(
        claim(text, subject, phrase, obj), resolve
    )
    (relation,) = result.assertions
    assert relation.predicate == ("assigned_to" if packs else "other:owned_by")
    assert (relation.subject_name, relation.object_name) == ("Ledger API", "Search team")


@pytest.mark.parametrize(
    ("text", "predicate", "first", "second", "concurrent"),
    [
        ("Dana reports to Ravi and to Tomasz.", "reports to", "Ravi", "Tomasz", True),
        ("Ravi is on the Search team and on the payments rewrite.", "is on", "Search team",
         "Search team", False),
    ],
)  # fmt: skip
def test_one_claim_stating_two_objects_of_one_predicate_holds_both(
    text: str, predicate: str, first: str, second: str, concurrent: bool
) -> None:
    # Said together by one source, neither succeeds the other; a repeat is no second value.
    subject = text.split()[0]
    item = replace(
        claim(text, subject, predicate, first),
        extra_relations=(ExtraRelation(subject, predicate, second),),
    )
    relations = [
        a
        for a in Normalizer(PredicateVocabulary()).normalize_claim(item, resolve).assertions
        if a.kind == "relation"
    ]
    assert relations and all(a.concurrent is concurrent for a in relations)


@pytest.mark.parametrize(
    ("text", "phrase", "predicate"),
    [
        ("Ravi moonlights for Northwind.", "moonlights for", "affiliated_with"),
        ("Ravi works at Northwind on weekends.", "works at", "works_for"),
        ("Ravi works for Northwind too.", "works for", "works_for"),
        ("Ravi works at Northwind on top of his day job.", "works at", "works_for"),
    ],
)
def test_a_placement_said_to_be_held_beside_another_is_concurrent(
    text: str, phrase: str, predicate: str
) -> None:
    """ "too", "on weekends", "on top of", moonlighting: a second place held at the same
    time, which supersedes nothing (affiliations are no functional slot at all)."""
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(text, "Ravi", phrase, "Northwind"), resolve
    )
    (relation,) = [a for a in result.assertions if a.kind == "relation"]
    assert relation.predicate == predicate
    assert relation.concurrent or predicate == "affiliated_with"


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("agree to lead", "member_of"),  # of a team object
        ("be set to join", "works_for"),
        ("plan to move to", "works_for"),
        ("decide to use", "uses"),
    ],
)
def test_a_commitment_to_a_verb_states_that_verb_s_relation(phrase: str, expected: str) -> None:
    stored = PredicateVocabulary().relation("Petra Holm", phrase, "Globex")
    team = PredicateVocabulary().relation("Petra Holm", phrase, "Search team")
    assert stored is not None and team is not None
    assert expected in (stored[1].predicate, team[1].predicate)


def test_a_wish_is_no_commitment() -> None:
    assert PredicateVocabulary().relation("Petra Holm", "want to join", "Globex") is None


@pytest.mark.parametrize(
    ("subject", "phrase", "obj", "expected"),
    [
        ("The Deel account", "manage by", "Farid Haddad",
         ("Farid Haddad", "works_on", "The Deel account")),
        ("Nadia Karim", "manage", "IT access", ("Nadia Karim", "works_on", "IT access")),
        ("Sara Lind", "manage", "the platform team",
         ("Sara Lind", "member_of", "the platform team")),
        ("Nadia Karim", "manage", "Omar Said", ("Omar Said", "reports_to", "Nadia Karim")),
        ("Omar Said", "manage by", "Nadia Karim", ("Omar Said", "reports_to", "Nadia Karim")),
        ("The platform team", "report to", "Sara Lind",
         ("The platform team", "reports_to", "Sara Lind")),
    ],
)  # fmt: skip
def test_managing_a_thing_is_working_on_it_in_either_voice(
    subject: str, phrase: str, obj: str, expected: tuple[str, str, str]
) -> None:
    stored = PredicateVocabulary().relation(subject, phrase, obj)
    assert stored is not None
    assert (stored[0], stored[1].predicate, stored[2]) == expected


@pytest.mark.parametrize(
    ("text", "extra", "dated"),
    [
        # "Priya Nair, CTO of Northwind, joins Lisbon's board from 1 May": the role is held now.
        ("Priya Nair, CTO of Northwind, meets Ravi from 1 May.", "work at", False),
        ("Priya Nair, head of sales at Northwind, meets Ravi from 1 May.", "work at", False),
        # "previously at Northwind, joined … on 1 May": ended by the clause's date.
        ("Priya Nair, previously at Northwind, meets Ravi from 1 May.", "formerly work at", True),
    ],
)
def test_a_role_an_apposition_describes_is_held_as_of_the_telling_not_over_the_window(
    text: str, extra: str, dated: bool
) -> None:
    item = replace(
        claim(
            text,
            "Priya Nair",
            "meets",
            "Ravi",
            window=Window(datetime(2026, 5, 1, tzinfo=UTC), None, "open"),
        ),
        extra_relations=(ExtraRelation("Priya Nair", extra, "Northwind", dated),),
    )
    (role,) = [
        a
        for a in Normalizer(PredicateVocabulary()).normalize_claim(item, resolve).assertions
        if a.kind == "relation" and a.object_name == "Northwind"
    ]
    assert role.predicate == "works_for"
    assert role.window.is_unknown is not dated


@pytest.mark.parametrize(
    ("text", "phase"),
    [
        ("Ravi has warmed to the four-day week.", "start"),
        ("Ravi came round to splitting the monolith.", "start"),
        ("Ravi has soured on the rebrand.", "start"),
        ("Ravi changed his mind about the offsite.", "start"),
        # A stance is held as it is said: said later, it succeeds the holder's earlier one.
        ("Ravi supports the four-day week.", "start"),
        ("Ravi is against the four-day week.", "start"),
        ("Ravi spoke at length about the four-day week.", "state"),
    ],
)
def test_a_view_arrived_at_announces_the_change_of_stance(text: str, phase: str) -> None:
    # Undated, said later: only a value that says it is the change succeeds the earlier one.
    (observation,) = (
        Normalizer(PredicateVocabulary()).normalize_claim(claim(text, "Ravi"), resolve).assertions
    )
    assert observation.phase == phase


@pytest.mark.parametrize(
    ("text", "concurrent"),
    [
        ("Also Ravi is switching to the Search team from Monday.", False),
        ("also, Ravi moves to the Search team on 1 June", False),
        ("And also Ravi joins the Search team next week.", False),
        ("Ravi also joins the Search team on Fridays.", True),
        ("Additionally, Ravi works for Northwind part-time.", True),
    ],
)
def test_a_message_opening_with_also_adds_a_point_not_a_concurrent_relation(
    text: str, concurrent: bool
) -> None:
    # "fyi I'm out next week" / "also I'm switching to the Growth team": the switch is a move.
    item = claim(text, "Ravi", "join", "Search team")
    (relation,) = Normalizer(PredicateVocabulary()).normalize_claim(item, resolve).assertions
    assert relation.concurrent is concurrent
