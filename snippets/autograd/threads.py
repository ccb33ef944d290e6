"""Which thread runs a backward node, and what a reentrant backward is."""
# --8<-- [start:caller_thread]
import threading

import torch


class Probe(torch.autograd.Function):
    """The identity, whose backward records the thread it runs on."""

    threads = []

    @staticmethod
    def forward(x):
        return x.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        Probe.threads.append(threading.get_ident())
        return grad


def backward_here():
    """Run a backward pass with two Probe nodes; did both run on this thread?"""
    Probe.threads.clear()
    x = torch.randn(3, requires_grad=True)
    Probe.apply(Probe.apply(x).exp()).sum().backward()
    me = threading.get_ident()
    return f"{len(Probe.threads)} nodes, all on the calling thread: {all(t == me for t in Probe.threads)}"


print("backward from the main thread:", backward_here())
result = {}
worker = threading.Thread(target=lambda: result.update(worker=backward_here()))
worker.start()
worker.join()
print("backward from another thread: ", result["worker"])


class Meet(torch.autograd.Function):
    """The identity, whose backward waits until a second backward is inside it too."""

    barrier = threading.Barrier(2, timeout=60)

    @staticmethod
    def forward(x):
        return x.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        Meet.barrier.wait()  # passes only with two backward passes here at once
        return grad


finished = []


def backward_meeting():
    x = torch.randn(3, requires_grad=True)
    Meet.apply(x).sum().backward()
    finished.append(x.grad is not None)


pair = [threading.Thread(target=backward_meeting) for _ in range(2)]
for t in pair:
    t.start()
for t in pair:
    t.join()
print("two backward passes met inside their nodes:", finished == [True, True])
# --8<-- [end:caller_thread]

# --8<-- [start:device_threads]
# A device of its own, in a fresh process: the toy PrivateUse1 backend of Operator dispatch,
# registered before any backward runs, when the engine starts its device threads.
import subprocess
import sys

child = """
import os, threading
import torch
from torch.utils.backend_registration import _setup_privateuseone_for_python_backend

torch.set_num_threads(1)
_setup_privateuseone_for_python_backend("toy")


def on_toy(cpu):  # a toy tensor: no device memory, its numbers kept in an attribute
    t = torch._C._acc.create_empty_tensor(tuple(cpu.shape), cpu.dtype)
    t.cpu_data = cpu
    return t


def copy_from(src, dst, non_blocking=False):
    (dst.cpu_data if dst.is_toy else dst).copy_(src.cpu_data if src.is_toy else src)
    return dst


toy_kernels = {
    "empty_strided": lambda size, stride, **kw: on_toy(torch.empty_strided(size, stride, dtype=kw["dtype"])),
    "_copy_from": copy_from,
    "mul.Tensor": lambda a, b: on_toy(a.cpu_data * b.cpu_data),
    "detach": lambda a: on_toy(a.cpu_data),
}
aten = torch.library.Library("aten", "IMPL")
for name, kernel in toy_kernels.items():
    aten.impl(name, kernel, "PrivateUse1")


class Where(torch.autograd.Function):
    seen = {}

    @staticmethod
    def forward(ctx, x):
        return x.detach() if x.is_toy else x.clone()

    @staticmethod
    def backward(ctx, grad):
        Where.seen[grad.device.type] = threading.get_ident()
        return grad


threads = lambda: len(os.listdir("/proc/self/task"))  # the process's OS threads
before = threads()  # import torch starts some already, more on a machine with more cores
print("toy devices:", torch.toy.device_count())
cpu = torch.ones(3, requires_grad=True)
Where.apply(cpu * 2).sum().backward()
print("OS threads the first backward started:", threads() - before)
toy = torch.ones(3).toy().requires_grad_()
Where.apply(toy * torch.full((3,), 2.0).toy()).backward(torch.ones(3).toy())
me = threading.get_ident()
print("node with a CPU gradient ran on the calling thread:", Where.seen["cpu"] == me)
print("node with a toy gradient ran on the calling thread:", Where.seen["toy"] == me)
print("toy.grad:", toy.grad.cpu(), "on", toy.grad.device, flush=True)
os._exit(0)  # skip interpreter teardown, which can abort once a toy device thread exists
"""
print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout.strip())
# --8<-- [end:device_threads]

# --8<-- [start:reentrant]
from torch.utils.checkpoint import checkpoint


class Labelled(torch.autograd.Function):
    """The identity, with a label kept on ctx for the backward that subclasses define."""

    @staticmethod
    def forward(x, label):
        return x.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.label = inputs[1]


class Tag(Labelled):
    """Its backward records its label, graph task and thread."""

    log = []

    @staticmethod
    def backward(ctx, grad):
        Tag.log.append((ctx.label, torch._C._current_graph_task_id(), threading.get_ident()))
        return grad, None


def block(h):
    return Tag.apply(h.sin(), "inside the checkpoint")


for reentrant in (True, False):
    Tag.log.clear()
    x = torch.randn(3, requires_grad=True)
    out = Tag.apply(checkpoint(block, Tag.apply(x, "before"), use_reentrant=reentrant), "after")
    print(f"use_reentrant={reentrant}: the node below the checkpoint's output is",
          out.grad_fn.next_functions[0][0].name())
    out.sum().backward()
    outer = Tag.log[0][1]
    for label, task, thread in Tag.log:
        print(f"  {label:22} graph task: {'outer ' if task == outer else 'nested'}"
              f"  calling thread: {thread == threading.get_ident()}")
# --8<-- [end:reentrant]

# --8<-- [start:depth]
class Nested(Labelled):
    """Its backward runs a whole backward pass of its own, through another Nested."""

    seen = []

    @staticmethod
    def backward(ctx, grad):
        depth = ctx.label
        Nested.seen.append((depth, threading.get_ident(), getattr(marker, "value", None)))
        if depth < 64:
            with torch.enable_grad():                 # backward runs in no_grad mode
                leaf = torch.ones(1, requires_grad=True)
                torch.autograd.grad(Nested.apply(leaf, depth + 1).sum(), leaf)
        return grad, None


marker = threading.local()                   # Python thread-local state of the caller
marker.value = "set by the caller"
Nested.apply(torch.ones(1, requires_grad=True), 0).sum().backward()
caller = threading.get_ident()
here = [d for d, t, _ in Nested.seen if t == caller]
there = [d for d, t, _ in Nested.seen if t != caller]
print("depth 0, the backward() call itself, on the calling thread:", 0 in here)
print(f"nested backwards at depth {min(d for d in here if d)}..{max(here)}: calling thread")
print(f"nested backwards at depth {min(there)}..{max(there)}: "
      f"{len({t for _, t, _ in Nested.seen if t != caller})} other thread")
print("marker.value seen at depth 1:", Nested.seen[1][2], "| at the deepest:", Nested.seen[-1][2])
# --8<-- [end:depth]

import os


def leave():
    """Exit without interpreter teardown: the thread the engine started for the deep reentrant
    backwards above is still alive, and tearing down under it can abort (std::terminate)."""
    sys.stdout.flush()
    os._exit(0)


if not torch.cuda.is_available():   # the region below is a GPU-only block
    leave()

# --8<-- [start:device_thread]
x = torch.randn(3, requires_grad=True)        # a CPU leaf
on_cpu = Probe.apply(x)                       # its gradient will be a CPU tensor
on_gpu = Probe.apply(on_cpu.cuda())           # its gradient will be a CUDA tensor
Probe.threads.clear()
on_gpu.sum().backward()
caller = threading.get_ident()
print("Probe on the CUDA tensor ran on the calling thread:", Probe.threads[0] == caller)
print("Probe on the CPU tensor ran on the calling thread: ", Probe.threads[1] == caller)
# --8<-- [end:device_thread]
leave()
