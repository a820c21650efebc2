"""Checking published articles against their run files: text readers, matching, reports, diff.

`reportgen.check.compare.check_article(folder, published)` is the entry point.
"""
