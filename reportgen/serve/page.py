"""What the preview sends a browser besides the built files: the page with its reload script and
its errors, added to the served bytes only (the built page in the site folder never holds them).

The reload script opens the event stream (`EVENTS`) with the preview's session and the version the
page was served at, and reloads the page when the server announces a newer one (or another
session: the preview was started again). When the last rebuild failed, a panel
at the top of the page lists its problems, each located (file:line:column, the JSON pointer
when there is one) and escaped; the last page that built follows it. Until a page builds, the
panel is the whole page.
"""

from __future__ import annotations

import html
import re

from reportgen.errors import Problem
from reportgen.serve.preview import PDF, State
from reportgen.terminal import visible

EVENTS = "/_reportgen/events"  # the event stream: a path no article file can have
PANEL_ID = "reportgen-serve-errors"
BADGE_ID = "reportgen-serve"

_BODY = re.compile(rb"<body\b[^>]*>", re.IGNORECASE)
_BODY_END = re.compile(rb"</body\s*>", re.IGNORECASE)

_STYLE = f"""<style>
#{PANEL_ID} {{ margin: 0; padding: 1rem 1.5rem; background: #fff4f2; color: #3b0d05;
  border-bottom: 3px solid #b42318; font: 15px/1.45 system-ui, sans-serif; }}
#{PANEL_ID} h2 {{ margin: 0 0 0.4rem; padding: 0; border: 0; font-size: 1.1rem;
  color: #b42318; }}
#{PANEL_ID} ol {{ margin: 0.4rem 0; padding-left: 1.4rem; }}
#{PANEL_ID} li {{ margin: 0.25rem 0; overflow-wrap: anywhere; }}
#{PANEL_ID} code {{ font: 13px/1.4 ui-monospace, monospace; }}
#{BADGE_ID} {{ position: fixed; right: 0.5rem; bottom: 0.5rem; padding: 0.2rem 0.5rem;
  background: #1f2937; color: #fff; font: 12px/1.4 system-ui, sans-serif; border-radius: 4px;
  opacity: 0.8; z-index: 1000; }}
#{BADGE_ID} a {{ color: #fff; }}
@media print {{ #{PANEL_ID}, #{BADGE_ID} {{ display: none; }} }}
</style>"""


def _script(session: str, version: int) -> str:
    return (
        "<script>/* reportgen serve: reloads this page when the article is rebuilt */\n"
        f'(function () {{ var events = new EventSource("{EVENTS}'
        f'?session={session}&after={version}");\n'
        '  events.addEventListener("reload", function () { events.close(); location.reload(); });\n'
        "})();</script>"
    )


def _badge() -> str:
    return f'<div id="{BADGE_ID}">preview &middot; <a href="/{PDF}">PDF</a></div>'


def _place(problem: Problem) -> str:
    where = f"{problem.path}:{problem.line}:{problem.col}"
    return where + (f" {problem.pointer}" if problem.pointer else "")


def panel(title: str, note: str, problems: tuple[Problem, ...]) -> str:
    """A panel that lists problems, each located, everything escaped."""
    items = "".join(
        f"<li><code>{html.escape(visible(_place(p)))}</code>: "
        f"{html.escape(visible(p.message))}</li>"
        for p in problems
    )
    return (
        f'<section id="{PANEL_ID}" role="alert"><h2>{html.escape(title)}</h2>'
        f"<p>{html.escape(note)}</p><ol>{items}</ol></section>"
    )


def _rebuild_panel(state: State) -> str:
    after = (
        "Below is the last page that built."
        if state.built
        else "No page has built yet: it shows here once one does."
    )
    note = f"Fix what is listed and save: the page reloads. {after}"
    return panel("The article did not build", note, state.problems)


def served_page(page: bytes | None, state: State, session: str) -> bytes:
    """The page a browser is sent: the last page that built (or an empty one), with the failed
    rebuild's problems at its top and the reload script at its end. `session`: the preview's
    (a page from an earlier `reportgen serve` on the same port reloads at once)."""
    extra = _STYLE + (_rebuild_panel(state) if state.problems else "")
    tail = _badge() + _script(session, state.version)
    if page is None:
        title = "reportgen serve: building" if not state.problems else "reportgen serve: error"
        return (
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}'
            f"</title></head><body>{extra}{tail}</body></html>\n"
        ).encode()
    opened = _BODY.search(page)
    at = opened.end() if opened else 0
    page = page[:at] + extra.encode() + page[at:]
    ends = list(_BODY_END.finditer(page))
    end = ends[-1].start() if ends else len(page)
    return page[:end] + tail.encode() + page[end:]


def error_page(title: str, note: str, problems: tuple[Problem, ...]) -> bytes:
    """A page of its own for a request that failed (the PDF), listing the problems."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head><body>{_STYLE}"
        f"{panel(title, note, problems)}</body></html>\n"
    ).encode()
