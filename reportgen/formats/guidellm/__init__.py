"""GuideLLM's `benchmarks.json`, 0.2 to 0.8: the format, its older layouts, its statistics and its
per-request records."""
