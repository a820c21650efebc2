"""`reportgen serve`: a live preview of an article on 127.0.0.1.

An article folder in; its page served to a browser, rebuilt whenever a prose file, article.toml
or a run file changes, and reloaded in the browser by itself. The stages, one module each:

- `preview`: the builds. Each rebuild renders the page (no PDF) in this process, which keeps
  the compiled template, the chart cache and, once a chart was drawn, matplotlib warm, and
  writes the page into a private temporary folder, never the article's. A failed rebuild writes
  nothing: the last good page stays. The PDF and metrics.json are made when a browser asks.
- `watch`: which file changes matter, and the thread that rebuilds on them.
- `page`: what the browser is sent besides the built files: the reload script and the errors,
  added to the served bytes only, never to the built page.
- `server`: the HTTP server, bound to 127.0.0.1 only.
- `session`: the four started and stopped together.

The file watcher is watchfiles (Rust's notify: inotify on Linux, FSEvents on macOS, polling
where neither works). It is well kept (uvicorn's reloader), it reports a change in two of its
steps (15 ms here) and it notices an editor that saves by writing a new file and renaming it.
watchdog was the other candidate; its events need the same debouncing done by hand. Polling the
files' mtimes would cost no dependency but wakes the process to stat every input, and misses a
change within the filesystem's mtime resolution.

The server is the standard library's `http.server.ThreadingHTTPServer`: a preview has one
reader, the routes are four (the page, the event stream, the files made on request, the built
files) and the reload is Server-Sent Events, which need no more than a response left open. A web
framework would earn nothing here.
"""
