"""The article's HTML page: the view objects, the Setup section's words, the data-quality findings
and the rendering."""
