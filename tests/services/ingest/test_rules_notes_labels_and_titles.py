"""Account notes, support transcripts and team announcements as other people write them (issue
16): a day that names the notes a sentence corrects is no date of what it corrects, a title
in brackets is no employer, a label may carry a role or a name in brackets, the group a line
is addressed to is not its subject, "10s" is a timeout, a past verb the tagger reads as a
participle is still the past, a last or first day may be said first, and a kind of meeting
opening a sentence is no organisation "they" could mean."""

from __future__ import annotations

from datetime import date

import pytest

from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import extract, stated_relations


def _day(value: object) -> date | None:
    return value.date() if value is not None else None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    [
        "Small correction to yesterday's notes: that should be 45 seats, not 40.",
        "A quick fix to Monday's summary - the headcount is 14, not 12.",
        "One amendment to last week's minutes: the budget is EUR 40k, not EUR 30k.",
    ],
)
def test_the_day_of_the_notes_corrected_is_no_date_of_the_value(
    extractor: RulesExtractor, text: str
) -> None:
    (claim,) = extract(extractor, text, "Account notes")
    assert claim.claim_valid_from is None and claim.claim_valid_until is None


@pytest.mark.parametrize(
    ("text", "measured"),
    [
        ("Revenue in Q4 was EUR 4.2 million.", date(2025, 10, 1)),
        ("Snowflake spend in October was 39,800 dollars.", date(2025, 10, 1)),
        ("Headcount for 2027 is planned at 55.", date(2027, 1, 1)),
    ],
)
def test_a_measurement_is_still_dated_by_its_subjects_period(
    extractor: RulesExtractor, text: str, measured: date
) -> None:
    (claim,) = extract(extractor, text)
    assert _day(claim.claim_valid_from) == measured


@pytest.mark.parametrize(
    "text",
    [
        "Kickoff call with Priya Anand (Ops Manager).",
        "We spoke to Tomasz Wolny (Procurement Lead) about the renewal.",
        "Jonas Berg (IT Director) joined the call.",
    ],
)
def test_a_title_in_brackets_after_a_person_is_no_employer(
    extractor: RulesExtractor, text: str
) -> None:
    found = stated_relations(extract(extractor, text))
    assert not [r for r in found if r[1] == "work for"]


@pytest.mark.parametrize(
    "text",
    [
        "We met Dana Lee, the Northwind CTO.",
        "Dana Lee, the Northwind CTO, signed the order.",
        "The order was signed by Dana Lee, the Northwind CTO.",
    ],
)
def test_a_name_before_a_capitalised_title_is_the_workplace(
    extractor: RulesExtractor, text: str
) -> None:
    assert ("Dana Lee", "work for", "Northwind") in stated_relations(extract(extractor, text))


@pytest.mark.parametrize(
    ("text", "speaker_says"),
    [
        (
            "Sabine Hart (CEO): I hired a new CTO last week.\n"
            "Marc Dubois (CFO): I approved the budget.\n",
            "Sabine Hart hired a new CTO last week",
        ),
        (
            "Agent (Chloé): I've escalated this to the engineering team.\n"
            "Customer (Dr. Aaron Whitfield): I run 14 scanners.\n",
            "Chloé has escalated this to the engineering team",
        ),
        (
            "SABINE HART: I hired a new CTO last week.\nTOMAS REYES: I'm moving to Berlin.\n",
            "Sabine Hart hired a new CTO last week",
        ),
    ],
)
def test_a_label_with_a_role_or_name_in_brackets_is_its_speaker(
    extractor: RulesExtractor, text: str, speaker_says: str
) -> None:
    assert speaker_says in [c.claim_text for c in extract(extractor, text, "Call")]


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        (
            "Team, starting Monday Lucia Ferraro will manage the Observability team.",
            "Lucia Ferraro",
        ),
        ("heads up folks: Marta Quist now leads the Search team.", "Marta Quist"),
        ("Everyone - Priya Raman is joining the Payments team next week.", "Priya Raman"),
        ("Folks, Omar Said takes over the on-call rota from Friday.", "Omar Said"),
    ],
)
def test_the_group_a_line_is_addressed_to_is_not_its_subject(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    (claim,) = extract(extractor, text, "Team update")
    assert claim.subject_text == subject


@pytest.mark.parametrize(
    "text",
    [
        "The default request timeout is 10s in prod.",
        "Our p99 latency target is 250ms.",
        "The health check interval is 5s.",
    ],
)
def test_a_short_duration_is_no_date(extractor: RulesExtractor, text: str) -> None:
    (claim,) = extract(extractor, text)
    assert claim.claim_valid_from is None and claim.claim_valid_until is None


@pytest.mark.parametrize(
    ("text", "subject", "day"),
    [
        ("The fix shipped on Monday.", "The fix", date(2026, 6, 1)),
        ("The patch shipped on Monday.", "The patch", date(2026, 6, 1)),
        ("The release shipped last Friday.", "The release", date(2026, 5, 29)),
        ("The hotfix landed on Monday.", "The hotfix", date(2026, 6, 1)),
        (
            "The fix for the login timeout shipped on Monday.",
            "The fix for the login timeout",
            date(2026, 6, 1),
        ),
        (
            "The migration of the billing database finished on Friday.",
            "The migration of the billing database",
            date(2026, 5, 29),
        ),
    ],
)
def test_a_past_verb_read_as_a_participle_is_the_past(
    extractor: RulesExtractor, text: str, subject: str, day: date
) -> None:
    (claim,) = extract(extractor, text + "\n")
    assert (claim.subject_text, _day(claim.claim_valid_from)) == (subject, day)


@pytest.mark.parametrize(
    ("text", "relation", "day"),
    [
        (
            "Today is Marcus Feld's last day at Brindle Health.",
            ("Marcus Feld", "leave", "Brindle Health"),
            date(2026, 6, 2),
        ),
        (
            "Friday is Omar Said's last day at Initech.",
            ("Omar Said", "leave", "Initech"),
            date(2026, 6, 5),
        ),
        (
            "Monday is Priya Raman's first day at Lumio.",
            ("Priya Raman", "join", "Lumio"),
            date(2026, 6, 8),
        ),
    ],
)
def test_a_first_or_last_day_said_first_starts_or_ends_the_placement(
    extractor: RulesExtractor, text: str, relation: tuple[str, str, str], day: date
) -> None:
    (claim,) = extract(extractor, text)
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == relation
    assert _day(claim.claim_valid_from) == day


@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("Kickoff call with Priya Anand. They're licensing 40 seats to start.", "licensing"),
        ("Standup with the Lumio team. They want SSO by June.", "want"),
        ("Demo for Harbourline went well. They asked for a trial.", "asked"),
    ],
)
def test_a_kind_of_meeting_opening_a_sentence_is_no_antecedent(
    extractor: RulesExtractor, text: str, verb: str
) -> None:
    gathering = text.split()[0]
    (said,) = [c for c in extract(extractor, text, "Account notes") if verb in c.claim_text]
    assert not said.claim_text.startswith(gathering)


@pytest.mark.parametrize(
    ("text", "person", "employer"),
    [
        ("Katherine Osei has been promoted to VP of Engineering at Larkspur Analytics, "
         "effective today.", "Katherine Osei", "Larkspur Analytics"),
        ("Kestrel Mills promoted Sofia Lind to chief operating officer in May.", "Sofia Lind",
         "Kestrel Mills"),
        ("Orvane has promoted Dana Whitfield to Senior Staff Engineer.", "Dana Whitfield",
         "Orvane"),
    ],
)  # fmt: skip
def test_a_promotion_holds_the_employment_undated_and_starts_nothing(
    extractor: RulesExtractor, text: str, person: str, employer: str
) -> None:
    (claim,) = extract(extractor, text)
    assert claim.predicate_text == "promote to"  # the title's change, dated by the claim
    assert [(r.subject_text, r.predicate_text, r.object_text, r.dated) for r in
            claim.extra_relations] == [(person, "work for", employer, False)]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Harrowgate Supplies has a new accounts payable contact, Imelda Roche. She joined in "
         "April.", "Imelda Roche"),
        ("Kestrel Clinics hired Amara Obi as COO. She will oversee all sites.", "Amara Obi"),
        ("Tallowmere Foods welcomed Ruth Aldana last week. She leads the clinical team.",
         "Ruth Aldana"),
        ("Today is Josefine Aalto's last day at Brisk Ledger. She is off to Halcyon Pay.",
         "Josefine Aalto"),
    ],
)  # fmt: skip
def test_she_after_a_company_and_a_person_is_the_person(
    extractor: RulesExtractor, text: str, person: str
) -> None:
    claims = extract(extractor, text)
    assert claims[-1].subject_text == person


@pytest.mark.parametrize(
    "line",
    [
        "Go-live date: 18 May 2026",
        "Headcount: 9",
        "Contract value: EUR 240k",
        "Renewal date: 1 March",
    ],
)
def test_a_common_key_of_a_report_line_is_the_reports_topics(
    extractor: RulesExtractor, line: str
) -> None:
    text = f"Project: Larkspur CRM migration\n{line}\nStatus: Amber\n"
    claims = extract(extractor, text, "Larkspur status w/e 27 Mar")
    (claim,) = [c for c in claims if c.claim_text == line]
    assert claim.subject_text == "Larkspur CRM migration"


def test_a_named_key_keeps_its_name(extractor: RulesExtractor) -> None:
    (claim,) = extract(extractor, "Project Nova status: green\n", "Portfolio status")
    assert claim.subject_text == "Project Nova"


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("The launch is on May 14.", date(2026, 5, 14)),
        ("Effective May 1, Priya Raman leads the Payments team.", date(2026, 5, 1)),
        ("As of May 4, the rate limit is 1000 requests per minute.", date(2026, 5, 4)),
    ],
)
def test_may_before_a_day_is_the_month(extractor: RulesExtractor, text: str, day: date) -> None:
    (claim,) = extract(extractor, text)
    assert _day(claim.claim_valid_from) == day


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("The contract was extended to the end of March.", date(2027, 3, 31)),
        ("The hiring freeze was extended until 30 April.", date(2027, 4, 30)),
        ("The pilot was extended through Q1.", date(2027, 3, 31)),
    ],
)
def test_a_period_is_extended_into_what_lies_ahead(
    extractor: RulesExtractor, text: str, end: date
) -> None:
    (claim,) = extract(extractor, text)
    assert _day(claim.claim_valid_until) == end


@pytest.mark.parametrize(
    "text",
    [
        "The hiring freeze is extended to the end of April.",
        "The pilot has been extended to 30 June.",
        "Our Acme trial got extended to the end of next month.",
    ],
)
def test_a_period_extended_to_a_date_ends_there_and_starts_where_it_did(
    extractor: RulesExtractor, text: str
) -> None:
    # Its new end, as "extended until …" says, not an event in the last days of April.
    (claim,) = extract(extractor, text)
    assert claim.claim_valid_from is None and claim.claim_valid_until is not None


def test_a_fronted_date_of_the_extending_keeps_its_reading(extractor: RulesExtractor) -> None:
    (claim,) = extract(extractor, "In January we extended the pilot by a month.")
    assert _day(claim.claim_valid_from) == date(2026, 1, 1)


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("Sabine Hart, CEO of Fenwick Robotics, said the A7 arm will ship in July.", "Sabine Hart"),
        ("Omar Said, CFO of Tessera Bank, said the audit closes in August.", "Omar Said"),
        ("Lena Brandt, head of data at Corvane, said the migration ends in July.", "Lena Brandt"),
    ],
)
def test_a_holders_role_holds_as_of_the_telling(
    extractor: RulesExtractor, text: str, holder: str
) -> None:
    (claim,) = extract(extractor, text)
    roles = [r for r in claim.extra_relations if r.subject_text == holder]
    assert roles and not any(r.dated for r in roles)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("The vendor, Corvane Systems, says the firmware fix is ready.", "Corvane Systems"),
        ("Our biggest customer, Harbourline, renewed for two years.", "Harbourline"),
        ("The payroll provider, Paystack Partners, charges 2300 pounds a month.",
         "Paystack Partners"),
    ],
)  # fmt: skip
def test_a_thing_described_then_named_is_the_one_named(
    extractor: RulesExtractor, text: str, named: str
) -> None:
    (claim,) = extract(extractor, text)
    assert named in (claim.subject_text, claim.holder)


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("Priya Raman owns the PG16 upgrade, due March 31.", "the PG16 upgrade"),
        ("Omar Said leads the billing migration, due in Q3.", "the billing migration"),
        ("Lena Brandt runs the vendor review, planned for June.", "the vendor review"),
    ],
)
def test_an_aside_after_a_comma_is_no_part_of_the_object(
    extractor: RulesExtractor, text: str, thing: str
) -> None:
    (claim,) = extract(extractor, text)
    assert claim.object_text == thing


@pytest.mark.parametrize(
    ("line", "relations"),
    [
        ("- Priya Nandakumar — Director, Payments (reports to Tomás Ferreira)",
         {("Priya Nandakumar", "member of", "Payments"),
          ("Priya Nandakumar", "report to", "Tomás Ferreira")}),
        ("* Jonah Abebe - Staff Engineer, Risk", {("Jonah Abebe", "member of", "Risk")}),
        ("Omar Said – Head of Platform, Lumio Labs", {("Omar Said", "work for", "Lumio Labs")}),
    ],
)  # fmt: skip
def test_an_org_chart_line_places_its_person(
    extractor: RulesExtractor, line: str, relations: set[tuple[str, str, str]]
) -> None:
    found = stated_relations(extract(extractor, line + "\n", "Org chart"))
    assert relations <= found


def test_an_org_chart_line_without_a_unit_is_in_the_pages_team(extractor: RulesExtractor) -> None:
    (claim,) = extract(
        extractor, "- Wen Li – VP Engineering (since 1 April)\n", "Platform team page"
    )
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        "Wen Li",
        "member of",
        "Platform team",
    )
    assert _day(claim.claim_valid_from) == date(2026, 4, 1)


@pytest.mark.parametrize(
    ("line", "relation"),
    [
        ("- Dana Kim - joined Lumio last week", ("Dana Kim", "join", "Lumio")),
        ("- Omar Said — moved to the Risk team in May", ("Omar Said", "move to", "the Risk team")),
        (
            "* Priya Raman – leads the Payments team now",
            ("Priya Raman", "lead", "the Payments team"),
        ),
    ],
)
def test_a_person_and_a_dash_before_what_they_did_is_its_subject(
    extractor: RulesExtractor, line: str, relation: tuple[str, str, str]
) -> None:
    claims = extract(extractor, line + "\n", "Standup notes")
    assert relation in stated_relations(claims)


@pytest.mark.parametrize(
    ("line", "relation"),
    [
        (
            "Incoming CSM: Marcus Oyelaran (effective 1 July)",
            ("Marcus Oyelaran", "own", "Acme Tooling"),
        ),
        ("Project Lead: Ana Ruiz", ("Ana Ruiz", "lead", "Acme Tooling")),
        ("Account owner: Lena Park", ("Lena Park", "own", "Acme Tooling")),
    ],
)
def test_a_role_key_of_an_account_note_is_no_speaker(
    extractor: RulesExtractor, line: str, relation: tuple[str, str, str]
) -> None:
    (claim,) = extract(extractor, line + "\n", "CRM notes - Acme Tooling")
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == relation


@pytest.mark.parametrize(
    ("line", "day"),
    [
        ("Renewal: 30 January", date(2027, 1, 30)),
        ("Go-live date: 14 February", date(2027, 2, 14)),
        ("Deadline: 3 April", date(2027, 4, 3)),
    ],
)
def test_a_coming_dates_key_reads_it_ahead(extractor: RulesExtractor, line: str, day: date) -> None:
    (claim,) = extract(extractor, line + "\n", "Account notes - Acme Tooling")
    assert _day(claim.claim_valid_from) == day


@pytest.mark.parametrize(
    ("text", "person", "employer"),
    [
        ("Harbourline Ferries has appointed Colm Brady as Chief Operating Officer.", "Colm Brady",
         "Harbourline Ferries"),
        ("Westbury Mills has named Priyanka Desai as Chief Financial Officer.", "Priyanka Desai",
         "Westbury Mills"),
        ("Pavel Hruby (Account Director) takes over the Ostrander Hotels account.", "Pavel Hruby",
         None),
    ],
)  # fmt: skip
def test_the_words_of_a_title_are_no_employer(
    extractor: RulesExtractor, text: str, person: str, employer: str | None
) -> None:
    found = stated_relations(extract(extractor, text))
    employers = {o for s, p, o in found if s == person and p in ("join", "work for")}
    assert employers == ({employer} if employer else set())


@pytest.mark.parametrize(
    ("text", "person", "employer"),
    [
        ("We spoke to the Ostwind CTO, Ravi Kumar, about pricing.", "Ravi Kumar", "Ostwind"),
        ("I met the Halden Group CFO, Ines Moreau, on Monday.", "Ines Moreau", "Halden Group"),
        ("We thanked the Quorvia COO, Rashida Mbeki, for the intro.", "Rashida Mbeki", "Quorvia"),
    ],
)
def test_a_person_met_in_their_role_works_where_it_is_held(
    extractor: RulesExtractor, text: str, person: str, employer: str
) -> None:
    assert (person, "work for", employer) in stated_relations(extract(extractor, text))


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("The cutover rehearsal finished on may 27.", date(2026, 5, 27)),
        ("the freeze lasted until may 20", date(2026, 5, 20)),
        ("we shipped it by may 3", date(2026, 5, 3)),
    ],
)
def test_a_lower_case_may_after_a_preposition_is_the_month(
    extractor: RulesExtractor, text: str, day: date
) -> None:
    (claim,) = extract(extractor, text)
    assert day in (_day(claim.claim_valid_from), _day(claim.claim_valid_until))
