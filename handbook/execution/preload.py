"""Imported once by the fork server, so that every page process starts with torch loaded."""

import fcntl
import os
import sys

import numpy  # noqa: F401  (torch warns on stderr without it)
import torch  # noqa: F401
import torch.utils.file_baton


class KernelHeldBaton(torch.utils.file_baton.FileBaton):
    """torch 2.13's lock on a C++ extension's build directory, held with flock(2), as torch 2.14 does.

    torch 2.13's baton is a file whose existence means "a build is running": a build killed
    half-way (a timeout, a stopped `make serve`) leaves it, and every later build of that
    extension, in this build or a concurrent one, waits for it until its block times out.
    The kernel releases an flock when its holder dies. Pages take the lock in turn and each
    builds (ninja does nothing when the extension is up to date), so a build that died
    half-way is redone rather than loaded."""

    def try_acquire(self) -> bool:
        while True:
            fd = os.open(self.lock_file_path, os.O_CREAT | os.O_RDWR, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)  # waits while another page builds it
            try:
                still_the_lock = os.stat(self.lock_file_path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                still_the_lock = False
            if still_the_lock:
                self.fd = fd
                return True
            os.close(fd)  # released and removed while this page waited: lock the new file

    def release(self) -> None:
        os.remove(self.lock_file_path)  # before unlocking, so that no one locks a file about to go
        os.close(self.fd)


torch.utils.file_baton.FileBaton = KernelHeldBaton
if "torch.utils.cpp_extension" in sys.modules:  # it took its own reference at import
    sys.modules["torch.utils.cpp_extension"].FileBaton = KernelHeldBaton
