"""`reportgen init`: a new article folder from run files, that builds at once."""
