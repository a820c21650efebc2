"""CSS as `check` needs it: which styles reach each piece of a published page's text (pure).

`sheets.py` reads stylesheets into rules, `match.py` tells which elements a selector matches,
`values.py` evaluates lengths, colours and transforms, and `cascade.py` resolves, for every
element, what readers see of its text: whether it is hidden, and which styles may keep a reader
from seeing it, through each element's `Look` (look.py), which `looks.py` computes and `doubts.py`
judges.
"""
