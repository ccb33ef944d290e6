"""The state every page starts in, as code: run by each page process before its first block,
and shown as the first cell of each chapter notebook, so a reader's kernel starts where the
page did. Part of the engine's version (`cache.engine_modules`): a change here re-runs every page."""

PAGE_STATE = """\
# Every page of the handbook runs in a fresh process in this state.
import random
import warnings

import numpy
import torch

torch.set_num_threads(1)
torch.manual_seed(0)
random.seed(0)
numpy.random.seed(0)
warnings.resetwarnings()
warnings.simplefilter("default")  # every warning shown, once per place
# A warning about a patch release of Python, not about any example: it would be recorded
# for 3.13.0 only (torch 2.15's guards warn "Guards may run slower on Python 3.13.0").
warnings.filterwarnings("ignore", message=r"Guards may run slower on Python 3\\.13\\.0", category=RuntimeWarning)"""
