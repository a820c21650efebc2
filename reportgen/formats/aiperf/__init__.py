"""NVIDIA AIPerf's files: the summary `profile_export_aiperf.json`, its input config, and the per-
request `profile_export.jsonl`."""
