"""An article's source: `article.toml` parsed with locations, checked against its limits, and turned
into declarations."""
