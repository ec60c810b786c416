"""LoCoMo retrieval benchmark: corpus, BM25 baseline and metrics."""
