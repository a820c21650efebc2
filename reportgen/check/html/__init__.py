"""A published HTML page read as its readers see it: parsed as a browser does, styled by its CSS,
cut into lines."""
