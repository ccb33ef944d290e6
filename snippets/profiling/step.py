"""The small training step that every example of the Profiling chapter profiles."""
# ruff: noqa: E402  (the environment is set before torch is imported)
import os

# Kineto's per-session log lines; Setting up (The profiler) shows them and this level.
# The build sets the same for every page; this line is for running the file on its own.
os.environ.setdefault("KINETO_LOG_LEVEL", "6")

import torch

torch.set_num_threads(1)  # as the build runs every page

# --8<-- [start:step]
from collections import Counter

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))


def train_step():
    opt.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.detach()


def ops(prof):
    """The names of the operator events (aten:: and autograd nodes), counted."""
    return Counter(e.name for e in prof.events() if not e.is_user_annotation)


for _ in range(3):  # warm up: the first calls of a process pay one-time costs
    train_step()
print("parameters:", sum(p.numel() for p in model.parameters()))
# --8<-- [end:step]

# What the other snippet files import from this one (the page's blocks share one namespace).
__all__ = ["Counter", "ProfilerActivity", "model", "nn", "opt", "ops", "profile", "record_function", "schedule",
           "torch", "train_step", "x", "y"]
