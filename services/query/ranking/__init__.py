"""How candidates are ordered: fused channel rankings and the query's cues; no database."""
