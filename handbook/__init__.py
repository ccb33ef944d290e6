"""The handbook's build logic: two halves, and the site layer above them.

- `handbook.execution`: finding each page's blocks, running pages in processes of their
  own, normalising what they print, recordings, the execution cache, re-recording.
- `handbook.sources`: PyTorch's files at the installed torch's tag, symbols' lines in
  them, and the pages' `pytorch:` links and excerpts.
- The site layer: `prebuild` (the execute step, which needs no site generator), `plugin`
  (the mkdocs adapter onto it), `rendering`, `notebooks`, `versions`,
  `prose` (quoted values, the prose guard), `reports` (failures, the execution report,
  How this site is built, What changed, drift), and `__main__` (the commands).

Below both halves: `environment` (the installed torch, the cache root), `releases` (the
recorded releases, in order), `switches` (every environment switch, named once),
`markdown_structure` (a page's fences, prose lines, headings and title), `messages` (the
build's own words in each site language, one catalog), `versioned_prose`
(which text an edition shows), `tree_files` (the repository's files, read inside it and
through no link, written whole), `log_text` (text from pages, escaped for the build's log)
and `errors` (bad input and failed tools, reported without a traceback). The halves import only from
below and from themselves; tests/test_layers.py checks it.
"""
