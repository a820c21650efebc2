"""The command line: argument parsing and printing over the library.

`reportgen.cli.main.main` is the entry point.
"""
