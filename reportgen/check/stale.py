"""Is a build older than its article? The sources a build records it was built from (its
marker, `article/publish.py` `built_from`) against the article's sources now, by content hash:
article.toml, the prose files and the run files. Built article in, an `Item` (or None) out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reportgen.article.publish import built_from
from reportgen.check.result import Item

if TYPE_CHECKING:
    from reportgen.article.build import Built


def changed_sources(recorded: dict[str, str], now: dict[str, str]) -> list[str]:
    """What changed between the sources a build recorded and those of the article now, in
    words: "intro.md changed", "notes.md is new", "old.json is gone"."""
    out = []
    for name in sorted(recorded.keys() | now.keys()):
        if name not in recorded:
            out.append(f"{name} is new")
        elif name not in now:
            out.append(f"{name} is gone")
        elif recorded[name] != now[name]:
            out.append(f"{name} changed")
    return out


def stale_build(built: Built, folder: Path, build_dir: Path, label: str) -> Item | None:
    """An error when the build of `built`'s article in `build_dir` was made from other sources
    than the article in `folder` has now (None when it is current, or there is no build)."""
    target = build_dir / built.article.slug
    recorded = built_from(target, built.article.slug)
    rebuild = f"run `reportgen build {folder} --out {build_dir}`"
    if recorded is None:
        if not (target / "index.html").is_file():
            return None
        # a page with no marker this reportgen reads: an older reportgen's, or edited by hand
        why = (
            f"the page in {target} has no build record this reportgen reads, so its sources "
            "are unknown"
        )
        return Item(kind="stale", source=label, line=1, col=1, message=f"{why}; {rebuild}")
    if not recorded:
        why = f"the build in {target} does not record its sources (an older reportgen made it)"
    else:
        changed = changed_sources(recorded, built.sources)
        if not changed:
            return None
        why = f"the build in {target} is older than its sources: {', '.join(changed)}"
    return Item(kind="stale", source=label, line=1, col=1, message=f"{why}; {rebuild}")
