"""The readers of published text: where each number a copy reports is found, and what it is expected
to be."""
