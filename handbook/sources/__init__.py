"""The sources half: where PyTorch's files are at the installed torch's tag, where a symbol's
lines are in them, and the pages' `pytorch:` links and excerpts rewritten to those lines.

It knows nothing of execution or of the site."""
