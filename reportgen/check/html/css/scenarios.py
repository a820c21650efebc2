"""The situations a page is read in (pure): the conditions its rules hold under in, `Scenario`s
out.

A rule's conditions are labels: a media query (evaluated for each of media.py's screens and
paper), or something check cannot evaluate (a reader's state such as `:hover`, `@supports`,
`@container`, `<noscript>`, an alternate stylesheet): a *maybe* label, true for some readers.

Each screen and paper (those that answer every query of the page alike count once) is read
- *at rest*: each maybe label at its likely value (a state off, `@supports` on unless it starts
  with `not`, an unknown media feature off, as browsers take it);
- and with no maybe label, with each set of them a rule holds under, and with all of them.

Text is hidden only when it is hidden in every scenario. A style that may keep readers from
seeing text is an error when, on every screen where the text shows at rest, the style does
(what shows only on paper, or only on hover, no reader of the page sees plainly).

Worst case: (screens x label sets) scenarios, at most `MAX_SCENARIOS`; each answer cached.
"""

from __future__ import annotations

from collections.abc import Iterable

from reportgen.check.html.css.media import ENVIRONMENTS, Environment, holds

MAX_SCENARIOS = 96
STATE = "a state (:hover, :focus, ...) or a selector check cannot evaluate"
NOSCRIPT = "scripts off (<noscript>)"
ALTERNATE = "an alternate or disabled stylesheet"
_UNLIKELY = frozenset({STATE, NOSCRIPT, ALTERNATE})
_UNLIKELY_RULES = ("@supports not", "@starting-style", "@document", "@-moz-document")


def is_media(label: str) -> bool:
    """Whether a label is a media query (else an at-rule's condition or a state)."""
    return not label.startswith("@") and label not in _UNLIKELY


def likely(label: str) -> bool:
    """The value a maybe label is taken at when the page is read at rest."""
    if label in _UNLIKELY or label.startswith(_UNLIKELY_RULES):
        return False
    return not is_media(label)  # an @supports, @container, @scope; a media query never here


class Scenario:
    """One situation: a screen (or paper) and the maybe labels taken as true."""

    def __init__(
        self, env: Environment, true: frozenset[str], rest: bool, base: int, maybe: frozenset[str]
    ) -> None:
        self.env, self.true, self.rest = env, true, rest
        self.base = base  # the scenario of the same screen at rest (its own index if at rest)
        self.maybe = maybe  # the page's maybe labels
        self._known: dict[frozenset[str], bool] = {}

    def label(self, label: str) -> bool:
        if is_media(label):
            truth = holds(label, self.env)
            if truth is not None:
                return truth
        return label in self.true

    def holds(self, conds: frozenset[str]) -> bool:
        """Whether every condition of a rule holds here."""
        found = self._known.get(conds)
        if found is None:
            found = self._known[conds] = all(self.label(c) for c in conds)
        return found


def scenarios(condition_sets: Iterable[frozenset[str]]) -> tuple[list[Scenario], bool]:
    """The scenarios a page's rules (their sets of conditions) are resolved in, those at rest
    first, the laptop's first of all; and whether there were more than `MAX_SCENARIOS` (only
    the first that many are resolved)."""
    sets = set(condition_sets)
    labels = frozenset().union(*sets) if sets else frozenset()
    media = sorted(label for label in labels if is_media(label))
    screens: dict[tuple[bool | None, ...], Environment] = {}
    for env in ENVIRONMENTS:
        screens.setdefault(tuple(holds(label, env) for label in media), env)

    def unknown(label: str) -> bool:
        return not is_media(label) or any(holds(label, e) is None for e in screens.values())

    maybe = frozenset(label for label in labels if unknown(label))
    at_rest = frozenset(label for label in maybe if likely(label))
    variants = {frozenset(), maybe} | {s & maybe for s in sets}
    # at rest on a screen (paper is not a screen: what only prints, no reader of the page sees)
    out = [
        Scenario(env, at_rest, env.kind == "screen", k, maybe)
        for k, env in enumerate(screens.values())
    ]
    ordered = sorted(variants - {at_rest}, key=sorted)
    out += [
        Scenario(env, true, False, k, maybe)
        for k, env in enumerate(screens.values())
        for true in ordered
    ]
    return out[:MAX_SCENARIOS], len(out) > MAX_SCENARIOS
