"""The seeded reconstruction of the bundled article's run files, off the main path.

Only its own entry point (`python -m reportgen.reconstruct`) and the tests import it.
"""
