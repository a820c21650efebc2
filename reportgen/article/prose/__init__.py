"""The article's prose: Markdown and captions rendered with their references to data resolved."""
