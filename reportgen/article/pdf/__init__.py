"""The article's PDF: rendered by WeasyPrint, here or in a worker forked ahead."""
