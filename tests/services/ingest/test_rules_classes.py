"""Classes of input the rules extractor must read from the parse, each in several phrasings:
entity spans, roles, possessors, discourse markers, short forms, placements, world time,
references and selection (issue 16)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)  # a Monday


def _claims(
    extractor: RulesExtractor, text: str, context: str | None = None, **kw: object
) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, context=context, **kw)  # type: ignore[arg-type]
    return extractor.extract_batch([inp])[0]


def _one(extractor: RulesExtractor, text: str, **kw: object) -> ExtractedClaim:
    (claim,) = _claims(extractor, text, **kw)
    return claim


def _day(claim: ExtractedClaim) -> tuple[str | None, str | None, str]:
    def day(value: datetime | None) -> str | None:
        return value.date().isoformat() if value else None

    return day(claim.claim_valid_from), day(claim.claim_valid_until), claim.claim_valid_precision


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Maria Lopez from the Berlin sales office signed the renewal.", "Maria Lopez"),
        ("Kenji Watanabe of the Osaka team reviewed the contract.", "Kenji Watanabe"),
        ("Amara Okafor, who runs procurement, approved the order.", "Amara Okafor"),
    ],
)
def test_a_name_does_not_swallow_what_follows_it(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _claims(extractor, text)[0].subject_text == subject


@pytest.mark.parametrize(
    ("text", "person", "org"),
    [
        (
            "Dana Whitfield, the CTO of Northwind, approved the budget.",
            "Dana Whitfield",
            "Northwind",
        ),
        ("Northwind's CFO, Lars Berg, signed the audit.", "Lars Berg", "Northwind"),
        ("Priya Nair, head of design at Lumen, presented the roadmap.", "Priya Nair", "Lumen"),
    ],
)
def test_a_role_in_an_apposition_is_a_relation_to_the_organization(
    extractor: RulesExtractor, text: str, person: str, org: str
) -> None:
    claim = _one(extractor, text)
    assert claim.subject_text == person
    assert [(r.subject_text, r.predicate_text, r.object_text) for r in claim.extra_relations] == [
        (person, "work for", org)
    ]


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("Tom Baker works for the CTO of Acme.", "Acme"),
        ("Dana is the CTO of Northwind.", "Northwind"),
        ("Lena Park is a senior engineer at Globex.", "Globex"),
    ],
)
def test_a_role_phrase_names_its_organization(
    extractor: RulesExtractor, text: str, obj: str
) -> None:
    claim = _one(extractor, text)
    assert (claim.predicate_text, claim.object_text) == ("work for", obj)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Acme's 2025 audit found two compliance gaps.", "Acme"),
        ("Globex's pricing page confuses new customers.", "Globex"),
        ("Initech's quarterly report shows a loss.", "Initech"),
    ],
)
def test_a_possessed_thing_is_anchored_on_its_possessor_and_its_date_is_not_the_window(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    claim = _one(extractor, text)
    assert claim.subject_text == subject
    assert claim.claim_valid_from is None


@pytest.mark.parametrize(
    "text",
    [
        "Correction: the launch moved to 14 April.",
        "Update: Priya Shah joined the data platform team.",
        "FYI - the vendor renewed the contract.",
        "Note: Ravi owns the incident process.",
    ],
)
def test_a_discourse_marker_is_never_the_subject(extractor: RulesExtractor, text: str) -> None:
    claim = _one(extractor, text)
    marker = text.split()[0].strip(":").lower()
    assert claim.subject_text and marker not in claim.subject_text.lower()
    assert marker not in claim.claim_text.lower()


@pytest.mark.parametrize(
    ("context", "text", "full"),
    [
        (
            "Leo Whitaker runs the Lisbon office.",
            "Leo said the lease ends in June.",
            "Leo Whitaker",
        ),
        ("Our partner is Sofia Marquez.", "Marquez approved the plan.", "Sofia Marquez"),
        (
            "Hannah Schmidt chaired the call.",
            "Later Hannah took the action item.",
            "Hannah Schmidt",
        ),
    ],
)
def test_a_short_form_after_a_full_name_in_the_document_is_that_name(
    extractor: RulesExtractor, context: str, text: str, full: str
) -> None:
    claim = _one(extractor, text, context=context)
    assert full in claim.claim_text
    assert full in ((claim.holder or "") + (claim.subject_text or ""))


def test_a_short_form_two_full_names_share_stays_as_written(extractor: RulesExtractor) -> None:
    context = "Leo Whitaker runs Lisbon. Leo Chen runs Porto."
    claim = _one(extractor, "Leo approved the budget.", context=context)
    assert claim.subject_text == "Leo"


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("Helix is part of Orbital Systems.", "part of", "Orbital Systems"),
        ("Sentinel is a subsidiary of Corvid Group.", "subsidiary of", "Corvid Group"),
        ("The Payments Guild belongs to the Finance division.", "belong to", "Finance division"),
        ("Brightline is a division of Halcyon.", "division of", "Halcyon"),
    ],
)
def test_part_of_phrasings_name_the_whole(
    extractor: RulesExtractor, text: str, predicate: str, obj: str
) -> None:
    claim = _one(extractor, text)
    assert claim.predicate_text == predicate
    assert claim.object_text is not None and claim.object_text.endswith(obj)


@pytest.mark.parametrize(
    ("text", "joined", "left"),
    [
        ("Maria left Acme and joined Globex in March.", "Globex", "Acme"),
        ("Maria quit Acme in March and joined Globex.", "Globex", "Acme"),
        ("Maria left Acme and started at Globex in March.", "Globex", "Acme"),
    ],
)
def test_a_job_change_in_one_sentence_is_two_claims_sharing_the_date(
    extractor: RulesExtractor, text: str, joined: str, left: str
) -> None:
    claims = _claims(extractor, text)
    objects = {c.object_text: c for c in claims}
    assert {joined, left} <= objects.keys()
    assert _day(objects[joined]) == _day(objects[left]) == ("2026-03-01", "2026-03-31", "month")
    assert all(c.subject_text == "Maria" for c in claims)


@pytest.mark.parametrize(
    ("text", "main", "left"),
    [
        ("Omar was hired by Umbrella from Hooli in January.", "Umbrella", "Hooli"),
        ("Ravi started at Stripe after leaving Square in 2024.", "Stripe", "Square"),
        ("Ben moved from the search team to the payments team in June.", "payments team", None),
    ],
)
def test_the_placement_left_on_the_way_is_a_further_relation(
    extractor: RulesExtractor, text: str, main: str, left: str | None
) -> None:
    claim = _one(extractor, text)
    assert claim.object_text is not None and claim.object_text.endswith(main)
    ends = [r.object_text for r in claim.extra_relations if r.predicate_text == "leave"]
    assert ends == ([left] if left else ["the search team"])


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("The new pricing applies from 1 May.", "2026-05-01"),
        ("As of Monday, Kim owns the incident process.", "2026-03-09"),
        ("Starting Q3, the Berlin team reports to Ana Ruiz.", "2026-07-01"),
        ("Effective 1 April, Jo leads support.", "2026-04-01"),
    ],
)
def test_a_state_that_begins_at_a_date_is_open_from_there(
    extractor: RulesExtractor, text: str, start: str
) -> None:
    assert _day(_one(extractor, text)) == (start, None, "open")


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("The migration should finish at the end of 2025.", ("2025-12-01", "2025-12-31", "month")),
        ("The rollout starts early Q2.", ("2026-04-01", "2026-04-30", "month")),
        ("We ship the beta in late April.", ("2026-04-21", "2026-04-30", "day")),
        ("The office opens in mid-2026.", ("2026-06-01", "2026-07-31", "month")),
    ],
)
def test_sub_periods_get_the_honest_part_not_the_whole(
    extractor: RulesExtractor, text: str, window: tuple[str, str, str]
) -> None:
    assert _day(_one(extractor, text)) == window


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("The call is at 16:30 (UTC+2) on 14 May.", datetime(2026, 5, 14, 14, 30, tzinfo=UTC)),
        ("The review starts at 9am PT on 3 June.", datetime(2026, 6, 3, 16, 0, tzinfo=UTC)),
        ("The demo is on 2026-04-07 at 10:15 CET.", datetime(2026, 4, 7, 8, 15, tzinfo=UTC)),
    ],
)
def test_clock_times_with_zones_are_instants_in_utc(
    extractor: RulesExtractor, text: str, instant: datetime
) -> None:
    claim = _one(extractor, text)
    assert (claim.claim_valid_from, claim.claim_valid_precision) == (instant, "instant")


@pytest.mark.parametrize(
    "text",
    [
        "Dana thinks the June date is too tight.",
        "Priya is on the platform team, as agreed twice today.",
        "The Q3 roadmap is approved.",
        "Ravi said on Monday that the vendor is reliable.",
    ],
)
def test_a_date_mentioned_in_passing_is_not_the_window(
    extractor: RulesExtractor, text: str
) -> None:
    assert _one(extractor, text).claim_valid_from is None


@pytest.mark.parametrize(
    ("context", "text", "name"),
    [
        ("Orion shipped to beta customers in January.", "It went live in six warehouses.", "Orion"),
        (None, "The new routing engine shipped. It now handles returns.", "routing engine"),
    ],
)
def test_it_names_what_it_refers_to(
    extractor: RulesExtractor, context: str | None, text: str, name: str
) -> None:
    claims = _claims(extractor, text, context=context)
    assert name in claims[-1].claim_text
    assert not claims[-1].claim_text.lower().startswith("it ")


def test_it_with_nothing_before_it_is_the_document_title(extractor: RulesExtractor) -> None:
    claim = _one(extractor, "It went live in six warehouses.", document_title="Atlas rollout")
    assert claim.claim_text.startswith("Atlas rollout went live")


@pytest.mark.parametrize(
    "text",
    [
        "Honestly it is a triumph.",
        "Frankly, the new flow is clunky.",
        "This release is a mess.",
        "Is the vendor contract signed?",
        # A judgment by its degree word, and a view of everyone at once.
        "The deploy pipeline is way too slow.",
        "The new dashboard is really confusing.",
        "The docs are pretty good now.",
        "Honestly, nobody reads the changelog.",
        "Frankly, everyone hates the new login page.",
    ],
)
def test_holderless_opinions_and_questions_are_dropped(
    extractor: RulesExtractor, text: str
) -> None:
    assert _claims(extractor, text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Dana thinks the new flow is clunky.",
        "According to Ravi, the release is a mess.",
        "Priya believes the vendor is a bargain.",
        "Omar thinks the deploy pipeline is way too slow.",
    ],
)
def test_attributed_opinions_are_kept_as_the_holders_view(
    extractor: RulesExtractor, text: str
) -> None:
    claim = _one(extractor, text)
    assert claim.is_attributed and claim.holder


@pytest.mark.parametrize(
    "text",
    [
        "the vendor signed the contract",
        "We moved the standup to Thursdays.",
        "Support tickets dropped by a third.",
        "The deploy pipeline takes 40 minutes.",
        "Checkout latency is too high at 900 ms.",
        "Caroline is so happy with her new job.",
    ],
)
def test_plain_declaratives_are_never_dropped(extractor: RulesExtractor, text: str) -> None:
    assert len(_claims(extractor, text)) == 1


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        ("Please welcome Thandiwe Dlamini, who joins the Trust team today.", "Thandiwe Dlamini",
         "the Trust team"),
        ("I took over from Daniela Cruz, who moved to the Osaka team in February.",
         "Daniela Cruz", "the Osaka team"),
        ("We met Grace Mwangi, who runs the Growth team.", "Grace Mwangi", "the Growth team"),
    ],
)  # fmt: skip
def test_a_relative_clause_about_a_name_is_a_claim_about_that_name(
    extractor: RulesExtractor, text: str, subject: str, obj: str
) -> None:
    found = [c for c in _claims(extractor, text) if c.subject_text == subject]
    assert found and found[-1].object_text == obj
    assert found[-1].claim_text.startswith(subject)


@pytest.mark.parametrize(
    "text",
    [
        "We shipped firmware 3.2 to all sites last night; it fixes the pairing issue.",
        "The cutover is done; Kafka now carries the refunds queue.",
        "Olumide moved to the SRE team in December, so he now leads on-call.",
    ],
)
def test_semicolons_and_so_separate_two_statements(extractor: RulesExtractor, text: str) -> None:
    assert len(_claims(extractor, text)) == 2


def test_every_conjoined_object_is_a_relation(extractor: RulesExtractor) -> None:
    claim = _one(extractor, "The committee includes Ngozi, Henrik Lund and Farah Siddiqui.")
    objects = [claim.object_text] + [r.object_text for r in claim.extra_relations]
    assert objects == ["Ngozi", "Henrik Lund", "Farah Siddiqui"]


@pytest.mark.parametrize(
    "text",
    [
        "We agreed, twice today, that Sofia stays on the ingest team.",
        "We decided that Ravi owns the migration.",
        "We confirmed that the vendor is Acme.",
    ],
)
def test_a_decision_the_writers_report_is_their_own_claim(
    extractor: RulesExtractor, text: str
) -> None:
    claim = _one(extractor, text)
    assert not claim.is_attributed and claim.claim_valid_from is None
    assert claim.subject_text not in (None, "We")


@pytest.mark.parametrize(
    ("text", "title", "subject"),
    [
        ("The contract renews on 1 November.", "Halcyon Bio — customer account", "Halcyon Bio"),
        ("The headcount is 64.", "Kraków office", "Kraków office"),
        ("The beta has 12 customers.", "Project Lighthouse", "Lighthouse"),
    ],
)
def test_a_bare_subject_in_prose_is_said_of_the_documents_topic(
    extractor: RulesExtractor, text: str, title: str, subject: str
) -> None:
    assert _one(extractor, text, document_title=title).subject_text == subject


@pytest.mark.parametrize(
    ("text", "title", "subject"),
    [
        ("The previous contract ran for two years.", "Halcyon Bio — account", "Halcyon Bio"),
        ("The enterprise plan costs $40 per seat.", "Pricing update", "The enterprise plan"),
        ("An annual licence is priced at €900.", "Licensing", "An annual licence"),
        ("The public API allows 600 requests a minute.", "Rate limits", "The public API"),
    ],
)
def test_an_adjective_of_kind_keeps_its_subject_whatever_the_title(
    extractor: RulesExtractor, text: str, title: str, subject: str
) -> None:
    # "the free tier" is one thing in every document that says it; titles vary ("Storage",
    # "Free tier changes"), so anchoring on them would split one attribute's values. An
    # adjective that only places the thing in context ("previous") still refers to the topic.
    assert _one(extractor, text, document_title=title).subject_text == subject


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("Ravi moved to Denver in June.", "relocate to"),
        ("Jon left Boston last year.", "relocate from"),
        ("Maria moved to Globex in June.", "move to"),
        ("Maria left Acme last year.", "leave"),
    ],
)
def test_a_known_place_is_where_someone_lives_not_works(
    extractor: RulesExtractor, text: str, predicate: str
) -> None:
    assert _one(extractor, text).predicate_text == predicate


@pytest.mark.parametrize(
    "text",
    ["Overall status: amber.", "Cost to date: $212k of a $260k budget.", "11.4% in September"],
)
def test_a_verbless_value_is_still_a_statement(extractor: RulesExtractor, text: str) -> None:
    assert len(_claims(extractor, text)) == 1


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("Snowflake spend in October was $39,800.", ("2025-10-01", "2025-10-31", "month")),
        ("Revenue in Q4 2025 was $4M.", ("2025-10-01", "2025-12-31", "quarter")),
        ("Pinecrest has used the API since the 2024 pilot.", ("2024-01-01", None, "open")),
    ],
)
def test_a_measured_period_or_a_starting_event_dates_the_claim(
    extractor: RulesExtractor, text: str, window: tuple[str, str | None, str]
) -> None:
    assert _day(_one(extractor, text)) == window


@pytest.mark.parametrize(
    ("text", "speaker"),
    [
        ("Selam: starting on the churn model today.", "Selam"),
        ("Dmitri: I am blocked on the S3 bucket.", "Dmitri"),
        ("- Priya Nair: I will own the rollout.", "Priya Nair"),
    ],
)
def test_a_line_opening_with_a_persons_name_is_that_person_speaking(
    extractor: RulesExtractor, text: str, speaker: str
) -> None:
    claim = _one(extractor, text)
    assert claim.subject_text == speaker
    assert not claim.claim_text.startswith(speaker + ":")


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Harriet Cole supports outsourcing the night shift.", "Harriet Cole"),
        ("Hye-jin Park works on Project Beacon.", "Hye-jin Park"),
        ("Ana-Maria Popescu leads the Data team.", "Ana-Maria Popescu"),
        ("Jean-Luc Martin joined Acme in May.", "Jean-Luc Martin"),
    ],
)
def test_a_given_name_the_tagger_split_off_stays_in_the_name(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _claims(extractor, text)[0].subject_text == subject


@pytest.mark.parametrize(
    ("text", "subject", "place"),
    [
        (
            "The Data Engineering team moved to the Birmingham office on 10 February 2025.",
            "The Data Engineering team",
            "the Birmingham office",
        ),
        (
            "We migrated the payments API to the Dublin region on 22 January 2025.",
            "the payments API",
            "the Dublin region",
        ),
        (
            "Last week Dana moved the archive servers to the Oslo datacenter.",
            "the archive servers",
            "the Oslo datacenter",
        ),
    ],
)
def test_what_moves_to_a_named_site_is_located_there(
    extractor: RulesExtractor, text: str, subject: str, place: str
) -> None:
    claim = _claims(extractor, text)[0]
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        subject,
        "relocate to",
        place,
    )


@pytest.mark.parametrize(
    ("text", "start"),
    [
        (
            "Harriet Cole has opposed outsourcing the night shift since the incident review"
            " on 9 June 2025.",
            "2025-06-09",
        ),
        (
            "Omar has championed moving the archive to S3 since the outage on 3 March 2025.",
            "2025-03-03",
        ),
        ("Priya has preferred using Terraform since the migration in January 2025.", "2025-01-01"),
    ],
)
def test_a_since_on_the_verbs_complement_starts_the_state(
    extractor: RulesExtractor, text: str, start: str
) -> None:
    assert _day(_claims(extractor, text)[0])[:2] == (start, None)


@pytest.mark.parametrize(
    ("text", "claim_text"),
    [
        ("- The Orion migration is at risk.", "The Orion migration is at risk"),
        ("* Small news: Omar joined Acme in May 2025.", "Omar joined Acme in May 2025"),
        ("2) Big update: Lena leads the Data team.", "Lena leads the Data team"),
        # chat's own markers
        ("fwiw Dana has led the incident review since January.",
         "Dana has led the incident review since January"),
        ("Quick one, the Lisbon office closes on Friday.", "The Lisbon office closes on Friday"),
        ("afaik Omar is leaving Orbit in June.", "Omar is leaving Orbit in June"),
    ],
)  # fmt: skip
def test_bullets_and_qualified_markers_are_not_claim_text(
    extractor: RulesExtractor, text: str, claim_text: str
) -> None:
    assert _claims(extractor, text)[0].claim_text == claim_text


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        (
            "Alongside her job at Halcyon Bank, Imani Brooks has worked for Greenway Trust.",
            "Greenway Trust",
        ),
        ("In addition to his role at Acme, Tom Reyes consults for Initech.", "Initech"),
        ("Next to her studies at Uppsala, Sara Lind works for Klarna.", "Klarna"),
    ],
)
def test_a_fronted_phrase_is_not_the_verbs_object(
    extractor: RulesExtractor, text: str, obj: str
) -> None:
    assert _claims(extractor, text)[0].object_text == obj


@pytest.mark.parametrize(
    "text",
    [
        "Subject: Board offsite\n\nThe board offsite is on 12 May 2025.",
        "From: Greta Lind\nTo: sales-team\nSubject: Price change\n\nThe Starter plan costs $59.",
        "Cc: finance\nSubject: Re: travel\n\nThe Lisbon trip is on 3 June.",
    ],
)
def test_email_header_lines_are_not_claims(extractor: RulesExtractor, text: str) -> None:
    claims = _claims(extractor, text)
    assert len(claims) == 1
    assert not any(word in claims[0].claim_text for word in ("Subject", "From", "Cc"))


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        ("The Lynx app uses Stripe.", "The Lynx app", "Stripe"),
        ("The Ledger service uses CockroachDB.", "The Ledger service", "CockroachDB"),
        ("The Quartz scheduler also relies on ZooKeeper.", "The Quartz scheduler", "ZooKeeper"),
    ],
)
def test_a_named_system_is_its_whole_name_and_camel_case_is_a_name(
    extractor: RulesExtractor, text: str, subject: str, obj: str
) -> None:
    claim = _claims(extractor, text)[0]
    assert (claim.subject_text, claim.object_text) == (subject, obj)


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("Mateus joined Harbourline on the 2nd.", ("2026-03-02", "2026-03-02", "day")),
        ("The invoice was paid on the 28th.", ("2026-02-28", "2026-02-28", "day")),
        ("Tom starts at Initech on the 20th.", ("2026-03-20", "2026-03-20", "day")),
    ],
)
def test_a_bare_day_of_the_month_is_read_in_the_month_it_was_said(
    extractor: RulesExtractor, text: str, window: tuple[str, str, str]
) -> None:
    assert _day(_claims(extractor, text)[0]) == window


@pytest.mark.parametrize(
    "text",
    [
        "From 1 March 2025, Hugo Laurent joins the Platform team and Mei Tanaka joins Data.",
        "Since 1 March 2025, Hugo Laurent leads the Platform team and Mei Tanaka leads Data.",
        "As of 1 March 2025, Hugo Laurent works on Atlas and Mei Tanaka works on Orion.",
    ],
)
def test_a_fronted_date_dates_every_clause_of_the_sentence(
    extractor: RulesExtractor, text: str
) -> None:
    claims = _claims(extractor, text)
    assert len(claims) == 2
    assert all(_day(c)[0] == "2025-03-01" for c in claims)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Aisha Khan reports to Tobias Weber since the reorg on 1 July 2025.", "2025-07-01"),
        ("Lena has led the Data team since the merger in March 2025.", "2025-03-01"),
        ("Omar has worked for Initech since the acquisition on 3 May 2025.", "2025-05-03"),
    ],
)
def test_the_date_of_the_event_a_since_names_starts_the_state(
    extractor: RulesExtractor, text: str, start: str
) -> None:
    assert _day(_claims(extractor, text)[0])[:2] == (start, None)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        (
            "Beacon is the internal search tool we maintain for Halvard's support agents."
            " It runs on Elasticsearch.",
            "Beacon",
        ),
        (
            "Quill is the invoicing app that Marrow Labs sells to dentists. It depends on Stripe.",
            "Quill",
        ),
        (
            "The Saltmarsh datacenter opened in 2019 near Ostend. It hosts the archive cluster.",
            "the Saltmarsh datacenter",
        ),
    ],
)
def test_a_subject_it_continues_the_previous_sentence_s_subject(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _claims(extractor, text)[-1].subject_text == subject


@pytest.mark.parametrize(
    "text",
    [
        "Lighthouse is the status page we build for Orbitra's enterprise clients.",
        "Pavel wrote the guide for Halvard's new hires.",
        "The audit covers Northwind's two warehouses.",
    ],
)
def test_a_possessive_after_an_expanded_name_stays_a_possessive(
    extractor: RulesExtractor, text: str
) -> None:
    context = "Orbitra Cloud, Halvard Group and Northwind Logistics signed in May."
    claim = _claims(extractor, text, context=context)[0]
    assert " is " not in claim.claim_text.replace(" is the status", ""), claim.claim_text


@pytest.mark.parametrize(
    ("text", "agent", "thing"),
    [
        ("Vega is maintained for us by the Infra team.", "the Infra team", "Vega"),
        ("Kafka is run for us by the Platform team.", "the Platform team", "Kafka"),
        ("The mobile app is owned for the company by the Apps team.", "the Apps team", None),
    ],
)
def test_a_passive_s_agent_is_its_other_party_past_a_beneficiary(
    extractor: RulesExtractor, text: str, agent: str, thing: str | None
) -> None:
    claim = _claims(extractor, text)[0]
    assert claim.object_text == agent
    assert (claim.predicate_text or "").endswith(" by")
    if thing is not None:
        assert claim.subject_text == thing


@pytest.mark.parametrize(
    ("text", "thing", "new", "old"),
    [
        (
            "Last spring we migrated the ledger database from MySQL to CockroachDB.",
            "the ledger database",
            "CockroachDB",
            "MySQL",
        ),
        (
            "In March the data team switched the nightly exports from Airflow to Dagster.",
            "the nightly exports",
            "Dagster",
            "Airflow",
        ),
        (
            "The billing service was moved from Heroku to AWS last quarter.",
            "The billing service",
            "AWS",
            "Heroku",
        ),
    ],
)
def test_a_thing_moved_between_systems_uses_the_new_one_and_leaves_the_old(
    extractor: RulesExtractor, text: str, thing: str, new: str, old: str
) -> None:
    claim = _claims(extractor, text)[0]
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        thing,
        "migrate to",
        new,
    )
    left = [(r.predicate_text, r.object_text) for r in claim.extra_relations]
    assert ("migrate from", old) in left


@pytest.mark.parametrize(
    ("text", "person", "place"),
    [
        (
            "Leadership moved Ingrid Solberg to the Risk team in February.",
            "Ingrid Solberg",
            "the Risk team",
        ),
        ("Priya moved Tom to the platform team last week.", "Tom", "the platform team"),
        ("We transferred Bruno to the Atlas project last month.", "Bruno", "the Atlas project"),
    ],
)
def test_whom_a_verb_moves_is_placed_not_the_mover(
    extractor: RulesExtractor, text: str, person: str, place: str
) -> None:
    claim = _claims(extractor, text)[0]
    assert (claim.subject_text, claim.object_text) == (person, place)


@pytest.mark.parametrize(
    ("context", "text", "subject"),
    [
        (
            "Budgets are signed off by the capital review board, chaired by Anke Vogel.",
            "The board meets on the first Monday of the month.",
            "the capital review board",
        ),
        (
            "We rely on the nightly reconciliation job for the ledger.",
            "The job failed twice last week.",
            "the nightly reconciliation job",
        ),
        (
            "Hiring goes through the engineering hiring committee.",
            "The committee includes Ravi Shah and Lucia Moreno.",
            "the engineering hiring committee",
        ),
    ],
)
def test_a_definite_noun_repeats_the_description_given_before_it(
    extractor: RulesExtractor, context: str, text: str, subject: str
) -> None:
    assert _claims(extractor, text, context=context)[0].subject_text == subject


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("Henrik Sørensen stepped back from the steering committee in June.", "step back from"),
        ("Marta stepped down from the steering committee in May.", "step down from"),
        ("Ines stepped away from the pricing council last week.", "step away from"),
    ],
)
def test_a_directional_adverb_belongs_to_the_verb_phrase(
    extractor: RulesExtractor, text: str, predicate: str
) -> None:
    claim = _claims(extractor, text)[0]
    assert claim.predicate_text == predicate
    assert claim.object_text is not None


@pytest.mark.parametrize(
    ("text", "org"),
    [
        ("Beatriz Santos starts today as Kestrel Group's Chief People Officer.", "Kestrel Group"),
        ("On Monday Ana Ruiz starts as head of sales at Globex.", "Globex"),
        ("Leo Park has worked as a data engineer at Initech since 2022.", "Initech"),
    ],
)
def test_a_role_taken_as_a_job_names_the_employer(
    extractor: RulesExtractor, text: str, org: str
) -> None:
    claim = _claims(extractor, text)[0]
    assert claim.object_text == org
    assert claim.predicate_text in ("start as", "work as")


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("Rosa Jiménez is on leave from 21 to 27 September 2026.", ("2026-09-21", "2026-09-27")),
        ("The conference runs June 3-5, 2026.", ("2026-06-03", "2026-06-05")),
        ("The change freeze runs from 14 to 21 December 2026.", ("2026-12-14", "2026-12-21")),
    ],
)
def test_days_of_one_month_joined_by_to_or_a_dash_are_a_range(
    extractor: RulesExtractor, text: str, window: tuple[str, str]
) -> None:
    assert _day(_claims(extractor, text)[0]) == (*window, "day")


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("The demo moved from 8 to 9 June 2026.", "2026-06-09"),
        ("The launch was pushed from 3 to 17 March 2026.", "2026-03-17"),
        ("The review slipped from 10 to 12 November 2026.", "2026-11-12"),
    ],
)
def test_a_rescheduled_day_range_keeps_the_new_day(
    extractor: RulesExtractor, text: str, day: str
) -> None:
    assert _day(_claims(extractor, text)[0]) == (day, day, "day")


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("Kenji is on parental leave until 3 March 2026.", (None, "2026-03-03")),
        ("The Team plan price from 1 May 2026 is $40.", ("2026-05-01", None)),
        ("Olu is on a sabbatical through 30 June 2026.", (None, "2026-06-30")),
    ],
)
def test_a_period_bound_on_a_noun_dates_the_clause(
    extractor: RulesExtractor, text: str, window: tuple[str | None, str | None]
) -> None:
    assert _day(_claims(extractor, text)[0])[:2] == window


@pytest.mark.parametrize(
    ("text", "unit", "new", "old"),
    [
        (
            "The Open Tide project moved from the Harbor Foundation to Coastal Commons in 2024.",
            "The Open Tide project",
            "Coastal Commons",
            "the Harbor Foundation",
        ),
        (
            "The Atlas project was transferred from Initech to Globex last year.",
            "The Atlas project",
            "Globex",
            "Initech",
        ),
        (
            "We moved the Helix project from Initech to Globex in March.",
            "the Helix project",
            "Globex",
            "Initech",
        ),
    ],
)
def test_a_project_moved_between_organisations_becomes_part_of_the_new_one(
    extractor: RulesExtractor, text: str, unit: str, new: str, old: str
) -> None:
    claim = _claims(extractor, text)[0]
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        unit,
        "become part of",
        new,
    )
    ended = [(r.predicate_text, r.object_text) for r in claim.extra_relations]
    assert ended and ended[0][0] == "cease to be part of"
    assert ended[0][1] is not None and ended[0][1].endswith(old.removeprefix("the "))


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("The Basic plan costs €9 per month.", "The Basic plan"),
        ("The Enterprise tier includes SSO.", "The Enterprise tier"),
        ("The Growth bundle is discontinued.", "The Growth bundle"),
    ],
)
def test_a_capitalised_word_inside_the_sentence_makes_a_name_not_a_bare_noun(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    claim = _claims(extractor, text, document_title="Plans and pricing")[0]
    assert claim.subject_text == subject


def test_a_bare_noun_is_still_said_of_the_document_s_topic(extractor: RulesExtractor) -> None:
    text = "The contract renews on 1 November 2026."
    claim = _claims(extractor, text, document_title="Halcyon Bio — customer account")[0]
    assert claim.subject_text == "Halcyon Bio"


@pytest.mark.parametrize(
    ("text", "person", "team"),
    [
        (
            "Please welcome Hana Mori, she joined the Atlas team on 10 February 2026.",
            "Hana Mori",
            "the Atlas team",
        ),
        (
            "Say hi to Omar Haddad, he starts on the payments team on Monday.",
            "Omar Haddad",
            "the payments team",
        ),
        ("Meet Lena Vogel, she leads the data team.", "Lena Vogel", "the data team"),
    ],
)
def test_an_imperative_before_a_clause_of_its_own_does_not_drop_that_clause(
    extractor: RulesExtractor, text: str, person: str, team: str
) -> None:
    (claim,) = _claims(extractor, text, speaker="Rui Costa")
    assert (claim.subject_text, claim.object_text) == (person, team)


@pytest.mark.parametrize(
    ("text", "org"),
    [
        ("Olu Adebayo is a member of the board of the Lagos Tech Fund.", "Lagos Tech Fund"),
        ("Maya Chen sits on the board of Acme Ventures.", "Acme Ventures"),
        ("Marta stepped down from the board of Globex in May.", "Globex"),
    ],
)
def test_a_board_is_named_by_the_organisation_it_governs(
    extractor: RulesExtractor, text: str, org: str
) -> None:
    assert _claims(extractor, text)[0].object_text == org


@pytest.mark.parametrize(
    ("text", "org"),
    [
        ("Kai is part-time at Globex.", "Globex"),
        ("Carla Mendes is full-time at Studio Nine.", "Studio Nine"),
        ("I'm part-time at Fernwood Press.", "Fernwood Press"),
    ],
)
def test_part_time_or_full_time_at_an_organisation_is_where_someone_works(
    extractor: RulesExtractor, text: str, org: str
) -> None:
    claim = _claims(extractor, text, speaker="Carla Mendes")[0]
    assert (claim.predicate_text, claim.object_text) == ("be at", org)


@pytest.mark.parametrize(
    ("text", "person", "predicate", "org", "day"),
    [
        (
            "Nia Campbell's start date at Meadowlark Health was 7 April 2026.",
            "Nia Campbell",
            "join",
            "Meadowlark Health",
            "2026-04-07",
        ),
        (
            "Omar Haddad's last day at Initech is 30 June 2026.",
            "Omar Haddad",
            "leave",
            "Initech",
            "2026-06-30",
        ),
        (
            "Lena's first day on the payments team was 3 March 2026.",
            "Lena",
            "join",
            "the payments team",
            "2026-03-03",
        ),
    ],
)
def test_a_start_or_last_day_at_an_organisation_is_the_placement_s_start_or_end(
    extractor: RulesExtractor, text: str, person: str, predicate: str, org: str, day: str
) -> None:
    claim = _claims(extractor, text)[0]
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        person,
        predicate,
        org,
    )
    assert _day(claim)[0] == day
