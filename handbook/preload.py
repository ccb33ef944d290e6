"""Imported once by the fork server, so that every page process starts with torch loaded."""

import numpy  # noqa: F401  (torch warns on stderr without it)
import torch  # noqa: F401
