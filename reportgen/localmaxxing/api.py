"""Constants of the LocalMaxxing API client, importable without its HTTP stack.

`reportgen submit`'s options need them when the CLI is set up; httpx and the submission code are
imported only when a submission actually runs.
"""

from __future__ import annotations

DEFAULT_API_BASE = "https://localmaxxing.com"
DEFAULT_TIMEOUT_S = 30.0  # seconds per network step
