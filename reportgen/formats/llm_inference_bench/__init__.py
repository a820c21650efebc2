"""llm-inference-bench's `benchmark_results.json`: the format, its decode cells, and its msgspec
fast path."""
