"""The stylesheet caches of check's HTML reader (`check/html/css/sheets.py`) change no result:
a page read with them cold, warm, or turned off is the same `Page`, and a selector list that
many rules share is matched, and its tests counted, once for each rule, as if compiled anew."""

from __future__ import annotations

import pytest
from helpers_articles import MEASURED, built_page

from reportgen.check.html.css import sheets
from reportgen.check.html.text import read_html

# The same selector list in many rules, and one rule past the cached length.
SHARED = "".join(f"div p:not(.q) {{ opacity: 0.{k % 9 + 1} }}" for k in range(50))
LONG = ", ".join(f"section.s{k} > p" for k in range(40)) + " { display: none }"


def _pages() -> list[str]:
    body = "<div>" * 5 + "<p>12 ms</p>" * 30 + "</div>" * 5
    return [
        built_page(MEASURED),
        f"<style>{SHARED}{LONG}</style>{body}",
        f"<style>{SHARED}</style><style>{SHARED}</style>{body}",
    ]


def _cleared() -> None:
    sheets._cached_sheet.cache_clear()
    sheets._cached_compiled.cache_clear()


@pytest.mark.parametrize("at", range(3))
def test_a_page_reads_the_same_with_the_caches_cold_warm_or_off(
    at: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = _pages()[at]
    _cleared()
    cold = repr(read_html(page))
    warm = repr(read_html(page))
    assert sheets._cached_compiled.cache_info().hits > 0  # the second reading used the cache
    monkeypatch.setattr(sheets, "CACHED_CSS", 0)
    monkeypatch.setattr(sheets, "CACHED_SELECTOR", 0)
    off = repr(read_html(page))
    assert cold == warm == off
