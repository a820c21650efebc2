"""JSON Schema validation of run files: the schemas' `$ref`s inlined, compiled to predicates, and
located problems."""
