"""Entity names and read-side lookups shared by the resolver and read-time ResolveEntity."""

# The predicate of a claim's relation declaring another name of one thing ("Northwind Robotics,
# formerly Nimbus Labs"): stated by the extractor, read by the adjudicator's resolver.
ALSO_KNOWN_AS = "also known as"
