"""JSON and JSON Lines run files read with every value located: the one way a run file's bytes
become data."""
