"""The handbook's build logic: two halves, the site layer above them, and the MkDocs adapter on top.

- `handbook.execution`: finding each page's blocks, running pages in processes of their
  own, normalising what they print, recordings, the execution cache, re-recording, and the
  messages that name a failing block's place (`execution.failures`).
- `handbook.sources`: PyTorch's files at the installed torch's tag, symbols' lines in
  them, and the pages' `pytorch:` and `pytorch-docs:` links and excerpts.
- The site layer: `prebuild` (the execute step, which needs no site generator), with
  `site_config` (what it reads of a site's configuration), `checks` (what the pages say,
  checked), `run_record` (its record, read by the render step) and `edition` (what it makes);
  `labs` (each lab's notebooks, its translation's checks), `notebooks`, `versions`,
  `translations`, `prose` (quoted values, the prose
  guard), `reports` (the execution report, How this site is built, What changed, drift),
  and `__main__` (the commands).
- The MkDocs adapter: `plugin` (MkDocs' events onto an `Edition`), `lab_pages`, `rendering`, `rebuilds`,
  `page_meta`, `page_weight`, `mkdocs_config` (the command line's reading of a
  configuration). Only these import `mkdocs`, `markdown_exec` or `material`.

Below both halves: `environment` (the installed torch, the cache root), `releases` (the
recorded releases, in order), `languages` (the site's languages: each one's code,
configuration and pages), `switches` (every environment switch, named once),
`markdown_structure` (a page's fences, prose lines, headings and title), `messages` (the
build's own words in each site language, one catalog), `versioned_prose` (which text an
edition shows), `tree_files` (the repository's files, read inside it and through no link,
written whole), `git` (one way to run git, typed failures), `log_text` (text from pages,
escaped for the build's log) and `errors` (bad input and failed tools, reported without a
traceback). The halves import only from below and from themselves; tests/unit/test_layers.py
checks it, and that nothing but the adapter knows MkDocs.
"""
