"""Reading run files: JSON with located errors, schemas, format detection, one module per format.

`reportgen.formats.load.load(paths)` reads, validates and normalizes run files into the run model
(`reportgen.model`).
"""
