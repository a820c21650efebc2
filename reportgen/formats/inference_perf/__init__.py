"""kubernetes-sigs inference-perf's reports: the lifecycle reports and the per-request report."""
