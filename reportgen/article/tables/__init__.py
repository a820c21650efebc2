"""The article's tables: laid out from metric values, their cells and marks, each as CSV."""
