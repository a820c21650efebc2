"""Claims a copy makes in its own words: ratios and changes, and which metrics a sentence names."""
