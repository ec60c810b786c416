"""Write-time entity resolution against a real Postgres: each behaviour of issue 4 point 2."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.entities.resolver import (
    RESOLVER_VERSION,
    EntityResolver,
    Mention,
    ResolutionContext,
    ResolvedMention,
)
from tests.support.resolving import (
    DocumentClaims,
    entity_count,
    merge_proposals,
    resolve_in_document,
)


async def test_same_name_twice_in_one_document_creates_one_entity_and_reuses_it(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        first, second = await resolve_in_document(
            session, namespace, document_claims, ["Orla Byrne", "Orla Byrne"]
        )
        assert first.created and not second.created
        assert first.entity_id == second.entity_id
        assert await entity_count(session, namespace) == 1
        count = (
            await session.execute(
                text("SELECT mention_count FROM entity_aliases WHERE namespace = :ns"),
                {"ns": namespace},
            )
        ).scalar_one()
        assert count == 2


async def test_document_that_mapped_a_shared_name_reuses_its_own_entity(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    resolver = EntityResolver(None)
    resolver = EntityResolver(None)
    async with session_factory() as session, session.begin():
        await resolve_in_document(
            session, namespace, document_claims, ["Dana", "Marcus Lee", "Priya Shah"]
        )
        doc, claims = await document_claims(session, namespace, 2)
        (second_dana,) = await resolver.resolve_mentions(
            session,
            namespace,
            [Mention("Dana", "subject", claims[0], doc, co_mentions=("Olu Ade", "Kenji Sato"))],
        )
        assert second_dana.created
        # A later claim of that document, with no context at all, still means its own Dana.
        (again,) = await resolver.resolve_mentions(
            session, namespace, [Mention("Dana", "object", claims[1], doc)]
        )
        assert again.entity_id == second_dana.entity_id
        assert again.step == "exact_alias"


async def test_full_name_given_name_and_initial_in_one_project_become_one_entity(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        full, _, _ = await resolve_in_document(
            session, namespace, document_claims, ["Ravi Patel", "Priya Shah", "Tom Becker"]
        )
        given, _ = await resolve_in_document(
            session, namespace, document_claims, ["Ravi", "Priya Shah"]
        )
        initial, _ = await resolve_in_document(
            session, namespace, document_claims, ["R. Patel", "Tom Becker"]
        )
        assert full.created
        assert given.entity_id == full.entity_id and not given.created
        assert initial.entity_id == full.entity_id and not initial.created
        assert await entity_count(session, namespace) == 3


async def test_given_name_in_the_same_document_as_the_full_name_resolves_to_it(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        full, given = await resolve_in_document(
            session, namespace, document_claims, ["Ravi Patel", "Ravi"]
        )
        assert given.entity_id == full.entity_id


async def test_two_danas_whose_contexts_share_nothing_stay_two_with_a_proposal(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        first, *_ = await resolve_in_document(
            session, namespace, document_claims, ["Dana", "Marcus Lee", "Priya Shah"]
        )
        second, *_ = await resolve_in_document(
            session, namespace, document_claims, ["Dana", "Olu Ade", "Kenji Sato"]
        )
        assert first.entity_id != second.entity_id and second.created
        assert first.entity_id is not None and second.entity_id is not None
        assert await merge_proposals(session, namespace) == [
            tuple(sorted((first.entity_id, second.entity_id)))
        ]


@pytest.mark.parametrize("company", ["Globex", "Orbital", "Initech"])
async def test_a_lone_company_name_in_unrelated_contexts_stays_one_entity(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    company: str,
) -> None:
    # Only a lone given name is shared by many people; a lone name of anything else is as
    # specific as a full name, whatever else its documents mention.
    contexts = [["Marcus Lee", "Priya Shah"], ["Olu Ade", "Kenji Sato"], ["Ines Duarte"]]
    async with session_factory() as session, session.begin():
        resolved = [
            (await resolve_in_document(session, namespace, document_claims, [company, *others]))[0]
            for others in contexts
        ]
        assert len({r.entity_id for r in resolved}) == 1
        assert await merge_proposals(session, namespace) == []


async def test_an_unresolved_namesake_ambiguity_never_mints_another_namesake(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        first, *_ = await resolve_in_document(
            session, namespace, document_claims, ["Dana", "Marcus Lee"]
        )
        second, *_ = await resolve_in_document(
            session, namespace, document_claims, ["Dana", "Olu Ade"]
        )
        assert second.created  # the context split one namesake off
        later = [
            (await resolve_in_document(session, namespace, document_claims, ["Dana", other]))[0]
            for other in ("Ines Duarte", "Tom Becker", "Aiko Mori", "Sven Olsen")
        ]
        assert not any(r.created for r in later)
        assert {r.entity_id for r in later} <= {first.entity_id, second.entity_id}
        assert await entity_count(session, namespace) == 2 + 6  # two Danas, six colleagues


async def test_dana_with_a_shared_colleague_resolves_to_the_known_dana(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        first, _ = await resolve_in_document(
            session, namespace, document_claims, ["Dana", "Marcus Lee"]
        )
        again, *_ = await resolve_in_document(
            session, namespace, document_claims, ["Dana", "Marcus Lee", "Kenji Sato"]
        )
        assert again.entity_id == first.entity_id


async def test_nickname_resolves_when_the_conversation_is_between_them(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        caroline, melanie = await resolve_in_document(
            session, namespace, document_claims, ["Caroline", "Melanie"]
        )
        (mel,) = await resolve_in_document(
            session, namespace, document_claims, ["Mel"], ("Caroline", "Melanie"), "Caroline"
        )
        deborah, jolene = await resolve_in_document(
            session, namespace, document_claims, ["Deborah", "Jolene"]
        )
        (deb,) = await resolve_in_document(
            session, namespace, document_claims, ["Deb"], ("Deborah", "Jolene"), "Jolene"
        )
        assert mel.entity_id == melanie.entity_id != caroline.entity_id
        assert deb.entity_id == deborah.entity_id != jolene.entity_id


async def test_nickname_without_supporting_context_becomes_new_with_a_proposal(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        melanie, _ = await resolve_in_document(
            session, namespace, document_claims, ["Melanie", "Caroline"]
        )
        mel, _ = await resolve_in_document(session, namespace, document_claims, ["Mel", "Gina"])
        assert mel.created and mel.entity_id != melanie.entity_id
        assert melanie.entity_id is not None and mel.entity_id is not None
        assert await merge_proposals(session, namespace) == [
            tuple(sorted((melanie.entity_id, mel.entity_id)))
        ]


async def test_case_accent_and_punctuation_variants_resolve_at_the_alias_step(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        (first,) = await resolve_in_document(session, namespace, document_claims, ["Zoë O'Neil"])
        variants = await resolve_in_document(
            session, namespace, document_claims, ["ZOE O’NEIL", "zoe o'neil.", "Dr. Zoe ONeil"]
        )
        assert {v.entity_id for v in variants} == {first.entity_id}
        assert {v.step for v in variants} == {"exact_alias"}


async def test_a_misspelt_name_resolves_at_the_trigram_step_but_a_description_does_not(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        name, first = await resolve_in_document(
            session,
            namespace,
            document_claims,
            ["Priyanka Ramaswamy", "Nate's first video game tournament in the city"],
        )
        misspelt, fourth = await resolve_in_document(
            session,
            namespace,
            document_claims,
            ["Priyanka Ramaswami", "Nate's fourth video game tournament in the city"],
            extra_context=("Priyanka Ramaswamy",),
        )
        assert misspelt.entity_id == name.entity_id and misspelt.step == "trigram"
        # Seven words: a description, compared exactly or not at all.
        assert fourth.created and fourth.entity_id != first.entity_id
        assert await merge_proposals(session, namespace) == []


async def test_a_misspelling_finds_the_entity_an_earlier_mention_of_the_call_created(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    # Both names are searched ahead, before the first creates its entity: the second must be
    # searched again, or it would become a second entity.
    async with session_factory() as session, session.begin():
        name, misspelt, other = await resolve_in_document(
            session,
            namespace,
            document_claims,
            ["Priyanka Ramaswamy", "Priyanka Ramaswami", "Lena Vogel"],
        )
        assert name.created and misspelt.entity_id == name.entity_id
        assert misspelt.step == "trigram" and other.created


async def test_an_entity_found_through_several_aliases_is_nominated_by_its_closest(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        full, surname = await resolve_in_document(
            session, namespace, document_claims, ["Priyanka Ramaswamy", "Ramaswamy"]
        )
        assert surname.entity_id == full.entity_id  # "ramaswamy" is now one of its aliases
        # 0.64 similar to the alias "ramaswamy", 0.33 to "priyanka ramaswamy": the close one
        # decides, with the co-mentioned full name as support.
        (misspelt,) = await resolve_in_document(
            session, namespace, document_claims, ["Ramaswami"], ("Priyanka Ramaswamy",)
        )
        assert misspelt.entity_id == full.entity_id and misspelt.step == "trigram"


async def test_bare_head_nouns_are_not_entities_unless_capitalized(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        system, app, orion, team = await resolve_in_document(
            session,
            namespace,
            document_claims,
            ["the system", "the app", "the Orion app", "our team"],
        )
        assert system.entity_id is None and app.entity_id is None and team.entity_id is None
        assert orion.entity_id is not None and orion.canonical_name == "Orion app"
        nulls = (
            await session.execute(
                text(
                    "SELECT count(*) FROM resolution_verdicts WHERE namespace = :ns"
                    " AND chosen_entity_id IS NULL AND step = 'model'"
                ),
                {"ns": namespace},
            )
        ).scalar_one()
        assert nulls == 3


async def test_a_lone_name_the_only_full_name_in_memory_abbreviates_is_that_person(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    """No context is shared, but no one else could be meant: "Ravi" is Ravi Patel whichever
    document came first for the documents that use his full name (issue 17)."""
    async with session_factory() as session, session.begin():
        full, _ = await resolve_in_document(
            session, namespace, document_claims, ["Ravi Patel", "Priya Shah"]
        )
        ravi, _ = await resolve_in_document(
            session, namespace, document_claims, ["Ravi", "Lena Vogel"]
        )
        surname, _ = await resolve_in_document(
            session, namespace, document_claims, ["Patel", "Omar Said"]
        )
        assert ravi.entity_id == full.entity_id and not ravi.created
        assert surname.entity_id == full.entity_id
        rule = (
            await session.execute(
                text("SELECT scores->>'rule' FROM resolution_verdicts WHERE claim_id = :claim"),
                {"claim": ravi.mention.claim_id},
            )
        ).scalar_one()
        assert rule == "sole_full_name"


async def test_given_name_of_two_full_names_without_context_support_creates_new_and_proposal(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        patel, _ = await resolve_in_document(
            session, namespace, document_claims, ["Ravi Patel", "Priya Shah"]
        )
        kumar, _ = await resolve_in_document(
            session, namespace, document_claims, ["Ravi Kumar", "Tom Lee"]
        )
        ravi, _ = await resolve_in_document(
            session, namespace, document_claims, ["Ravi", "Lena Vogel"]
        )
        assert ravi.created and ravi.entity_id not in (patel.entity_id, kumar.entity_id)
        assert len(await merge_proposals(session, namespace)) == 1


async def test_a_full_name_sharing_only_a_given_name_proposes_nothing_but_initials_match(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        full, _ = await resolve_in_document(
            session, namespace, document_claims, ["Ravi Patel", "Priya Shah"]
        )
        # 0.31 trigram-similar to "Ravi Patel": another person, not a merge to review.
        other, _ = await resolve_in_document(
            session, namespace, document_claims, ["Ravi Shah", "Lena Vogel"]
        )
        assert other.created and other.entity_id != full.entity_id
        assert await merge_proposals(session, namespace) == []
        # An initial keeps the low floor: "R. Patel" is 0.5 similar and found by the trigram step.
        initial, _ = await resolve_in_document(
            session, namespace, document_claims, ["R. Patel", "Priya Shah"]
        )
        assert initial.entity_id == full.entity_id and initial.step == "trigram"


async def test_every_mention_records_a_verdict_with_step_scores_version_and_claim(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        created, reused = await resolve_in_document(
            session, namespace, document_claims, ["Ines Duarte", "ines duarte"]
        )
        rows = (
            await session.execute(
                text(
                    "SELECT v.step, v.scores, v.chosen_entity_id, v.created_new,"
                    " v.resolver_version, c.id IS NOT NULL AS has_claim FROM resolution_verdicts v"
                    " LEFT JOIN claims c ON c.id = v.claim_id WHERE v.namespace = :ns"
                    " ORDER BY v.created_new DESC"
                ),
                {"ns": namespace},
            )
        ).all()
        assert [(r.step, r.created_new) for r in rows] == [("new", True), ("exact_alias", False)]
        assert all(r.resolver_version == RESOLVER_VERSION and r.has_claim for r in rows)
        assert all(r.chosen_entity_id == created.entity_id for r in rows)
        assert rows[0].scores["normalized"] == "ines duarte"
        assert reused.entity_id == created.entity_id


async def test_calls_sharing_a_context_reuse_its_entities_and_record_every_verdict(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    resolver = EntityResolver(None)
    async with session_factory() as session, session.begin():
        doc, claims = await document_claims(session, namespace, 3)
        context = ResolutionContext(session, namespace)
        first, team = await resolver.resolve_mentions(
            session,
            namespace,
            [
                Mention("Dana", "subject", claims[0], doc, co_mentions=("the team",)),
                Mention("the team", "object", claims[1], doc, co_mentions=("Dana",)),
            ],
            context=context,
        )
        (again,) = await resolver.resolve_mentions(
            session, namespace, [Mention("Dana", "subject", claims[2], doc)], context=context
        )
        assert first.created and team.entity_id is None
        assert again.entity_id == first.entity_id and not again.created
        rows = (
            await session.execute(
                text(
                    "SELECT mention_text, chosen_entity_id FROM resolution_verdicts"
                    " WHERE namespace = :ns ORDER BY mention_text"
                ),
                {"ns": namespace},
            )
        ).all()
        assert [(r.mention_text, r.chosen_entity_id) for r in rows] == [
            ("Dana", first.entity_id),
            ("Dana", first.entity_id),
            ("the team", None),
        ]


async def test_a_context_of_another_session_is_refused(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with session_factory() as one, session_factory() as other:
        context = ResolutionContext(one, namespace)
        mention = Mention("Dana", "subject", None, None)
        with pytest.raises(ValueError, match="own session"):
            await EntityResolver(None).resolve_mentions(
                other, namespace, [mention], context=context
            )


async def test_parallel_workers_resolving_the_same_new_name_create_one_entity(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
) -> None:
    resolver = EntityResolver(None)
    names = ["Quinn Abara", "Yusra Halloran", "Teodor Wilk"]
    # The namespace row exists first: inserting it would serialize the workers by itself.
    async with session_factory() as session, session.begin():
        await session.execute(
            text("INSERT INTO namespaces (namespace) VALUES (:ns)"), {"ns": namespace}
        )
    # Both transactions are open and connected before either looks a name up.
    both_ready = asyncio.Barrier(2)

    async def worker() -> list[ResolvedMention]:
        async with session_factory() as session, session.begin():
            await session.execute(text("SELECT 1"))
            await both_ready.wait()
            mentions = [Mention(n, "subject", None, None) for n in names]
            return await resolver.resolve_mentions(session, namespace, mentions)

    first, second = await asyncio.gather(worker(), worker())
    assert [r.entity_id for r in first] == [r.entity_id for r in second]
    async with session_factory() as session:
        assert await entity_count(session, namespace) == len(names)
        created = sum(r.created for r in first + second)
        assert created == len(names)
