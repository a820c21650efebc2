"""Articles: article.toml and prose, tables and charts, the HTML page, the PDF, and the build.

`reportgen.article.build.build(folder, out)` builds one article; `reportgen.article.source.manifest`
reads its source. (Importing this package loads neither WeasyPrint nor matplotlib.)
"""
