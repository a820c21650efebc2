"""llama.cpp's `llama-bench` output: the format, its configurations, and outputs written back to
back."""
