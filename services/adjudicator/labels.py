"""A fact's statement, label and window kind come from its first supporting claim in a
canonical order.

A fact confirmed by differently worded claims ("Headcount is 64", "The office has 64 people")
was labelled by whichever claim arrived first, so the same documents in another order gave
another label. The canonical first claim is the earliest said, then the document's identity
(its source pair or content hash), then its position: a function of the evidence set. Its
embedding (the claim's, which an observation's label reuses) goes with it. What the window
describes (`valid_kind`: an event's time or a state's effective period) was likewise the
creating claim's: "joined the search team on 1 March" first gave an event, "has been on the
search team since March" first a period.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator import labels_repository
from services.adjudicator.normalization import observation_label

__all__ = ["settle_labels"]


async def settle_labels(
    session: AsyncSession,
    namespace: str,
    fact_ids: Sequence[UUID],
    corroborated: Sequence[UUID] = (),
) -> None:
    """Give each observation among `fact_ids` the statement of its canonical first claim, and
    each of `corroborated` (facts that gained a claim besides the one that created them: no
    other fact's first claim can differ from its creator) that claim's window kind."""
    if corroborated:
        await labels_repository.settle_window_kinds(
            session, namespace, sorted(set(corroborated), key=str)
        )
    if not fact_ids:
        return
    ids = sorted(set(fact_ids), key=str)
    rows = await labels_repository.first_claims(session, namespace, ids)
    for row in rows:
        if row.first_statement == row.statement:
            continue
        await labels_repository.set_label(
            session,
            namespace,
            row.id,
            statement=row.first_statement,
            label=observation_label(row.first_statement),
            embedding_of_claim=row.claim_id if row.has_vector else None,
        )
