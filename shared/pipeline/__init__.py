"""The contract between ingest and the adjudicator: work kinds, payloads, retirement, stages.

Import the modules themselves (`shared.pipeline.kinds`, `.payloads`, `.retirement`, `.stages`,
`.stage_repository`); this package re-exports nothing, so `shared.db.models` can use
`retirement` without importing the stage repository (which imports the models).
"""

from __future__ import annotations

__all__: list[str] = []
