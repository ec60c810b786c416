"""The belief layer's shared write rules: entity locks, evidence counts, testimony retirement."""
