"""vLLM's `vllm bench serve` results: one saved result, results appended one a line, and the lists
vLLM's tooling writes beside them."""
