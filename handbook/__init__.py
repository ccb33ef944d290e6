"""Build logic of the handbook: executed blocks, recorded outputs, source links."""
