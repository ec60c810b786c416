"""The query RPCs' reads inside one snapshot: rows from sql/, order from ranking/."""
