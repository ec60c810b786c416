"""Why a claim stops being current testimony: the one list of retirement reasons."""

from __future__ import annotations

from typing import Final, Literal, get_args

__all__ = ["RETIREMENT_REASONS", "RetirementReason"]

RetirementReason = Literal["reextracted", "version_superseded", "version_deleted"]
"""`reextracted`: a newer extractor read the same version again; `version_superseded`: a living
document's newer version no longer says it; `version_deleted`: the document was deleted."""

RETIREMENT_REASONS: Final[tuple[RetirementReason, ...]] = get_args(RetirementReason)
