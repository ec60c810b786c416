"""Every statement the query service runs: snapshots, channels, hydration, lookups."""
