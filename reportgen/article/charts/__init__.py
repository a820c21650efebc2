"""The article's charts: what each draws (plain data), drawn by matplotlib into inline SVG, cached
and checked."""
