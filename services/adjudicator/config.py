"""Settings of the adjudicator: the writing services' ones plus the engine, entity and
extension knobs, and its replica processes."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import NoDecode

from shared.config import WriterSettings, settings_with

__all__ = ["AdjudicatorSettings", "load_settings"]

_PACK_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


class AdjudicatorSettings(WriterSettings):
    """Settings of the writing services plus what only the adjudicator reads."""

    fact_adjudication_engine: Literal["jev", "prompt"] = Field(
        default="jev", description="Engine that turns claims into facts."
    )
    fact_confidence_floor: float = Field(
        default=0.75,
        ge=0.0,
        le=1.0,
        description="Facts below this confidence are not served as facts (0..1).",
    )
    extension_packs: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Extension packs to enable, comma-separated in the environment (e.g. work).",
    )
    entity_auto_merge: bool = Field(
        default=False,
        description=(
            "Automatic merging of existing entities. Off, and only off is implemented: "
            "candidate merges are recorded as proposals (ListMergeProposals) for review."
        ),
    )
    entity_resolver: Literal["rules", "llm"] = Field(
        default="rules",
        description=(
            "Final entity choice (existing candidate or new): the offline rule model, or a chat"
            " model (needs REMEMBERSTACK_LLM_BASE_URL and REMEMBERSTACK_LLM_MODEL)."
        ),
    )

    adjudicator_processes: int = Field(
        default=1,
        ge=1,
        le=16,
        description=(
            "Processes of one adjudicator running queue workers: the serving one plus replicas"
            " it starts and stops. Python runs one process on one core, so this, not"
            " worker_concurrency, is what puts more cores to adjudication."
        ),
    )

    @field_validator("extension_packs", mode="before")
    @classmethod
    def _split_packs(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("extension_packs")
    @classmethod
    def _check_packs(cls, value: list[str]) -> list[str]:
        bad = [pack for pack in value if not _PACK_NAME.match(pack)]
        if bad:
            raise ValueError(f"extension pack names must be lower-case identifiers, got {bad}")
        return list(dict.fromkeys(value))

    def _combination_problems(self) -> list[str]:
        problems = super()._combination_problems()
        if self.fact_adjudication_engine == "prompt" and not self.llm_model:
            problems.append("fact_adjudication_engine=prompt needs REMEMBERSTACK_LLM_MODEL")
        if self.entity_resolver == "llm" and not (self.llm_base_url and self.llm_model):
            problems.append(
                "entity_resolver=llm needs REMEMBERSTACK_LLM_BASE_URL and REMEMBERSTACK_LLM_MODEL"
            )
        if self.entity_auto_merge:
            problems.append(
                "entity_auto_merge=true is not supported: merges are proposed for review "
                "(ListMergeProposals) and applied with MergeEntities"
            )
        return problems


def load_settings(**overrides: Any) -> AdjudicatorSettings:
    """Read settings from the environment; keyword overrides win (tests, CLI flags), and those
    naming another service's knobs are left to that service."""
    return settings_with(AdjudicatorSettings, overrides)
