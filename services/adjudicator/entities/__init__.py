"""Entity resolution, aliases, profiles and merges of the adjudicator (SPEC §3)."""
