"""Submitting measured runs to the LocalMaxxing leaderboard: payload, contract, HTTP, submit.

`reportgen.localmaxxing.submit.submit_runs` is the entry point; httpx loads only with it.
"""
