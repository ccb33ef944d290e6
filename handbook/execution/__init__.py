"""The execution half: finding the blocks of a page, running each page in a process of its own,
normalising what it printed, and checking it against the recordings of the installed torch.

It knows nothing of source links or of the site: `handbook.plugin` and `python -m handbook`
wire it to the rest."""
