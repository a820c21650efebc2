"""Metrics: the registry of metric definitions, their computation from runs, display and lints.

`reportgen.metrics.compute.compute(runs)` gives every metric value; `reportgen.metrics.lints.lint`
judges how plausible they are; `reportgen.metrics.display` says how each is shown.
"""
