"""Entity names and read-side lookups shared by the resolver and read-time ResolveEntity."""
