"""The store: a small key-value service that the ranks meet at."""

from snippets.distributed.ranks import dist, fork, run_ranks, show, timedelta, torch, warnings  # noqa: F401


# --8<-- [start:hello]
def hello(rank, world_size):
    return f"backend {dist.get_backend()}, rank {dist.get_rank()} of {dist.get_world_size()}"


show(run_ranks(hello))
# --8<-- [end:hello]

# --8<-- [start:store_ops]
store = dist.HashStore()  # in-process; TCPStore and FileStore have the same methods
store.set("epoch", "3")
print("get('epoch'):", store.get("epoch"))  # values come back as bytes
print("add('arrived', 1) twice:", store.add("arrived", 1), store.add("arrived", 1))
print("check(['epoch']), check(['missing']):", store.check(["epoch"]), store.check(["missing"]))
store.wait(["epoch"])  # returns at once: the key exists
store.set_timeout(timedelta(seconds=1))
try:
    store.wait(["missing"])  # blocks until the key appears, or the timeout
except dist.DistStoreError as e:
    print(f"{type(e).__name__}: {e}")
# --8<-- [end:store_ops]

# --8<-- [start:tcpstore]
import os  # noqa: E402
import tempfile  # noqa: E402

server = dist.TCPStore("127.0.0.1", 0, world_size=2, is_master=True, wait_for_workers=False)
client = dist.TCPStore("127.0.0.1", server.port, world_size=2, is_master=False)  # a second rank, say
client.set("addr/1", "what rank 1 wants rank 0 to know")
print("the OS chose a free port:", server.port > 0)
print("server sees:", server.get("addr/1"))
print("counter shared by both:", server.add("count", 1), client.add("count", 1))
del client, server

with tempfile.TemporaryDirectory() as tmp:
    a = dist.FileStore(os.path.join(tmp, "store"), 2)  # two handles on one file, as two ranks would hold
    b = dist.FileStore(os.path.join(tmp, "store"), 2)
    a.set("k", "v")
    print("FileStore, through the other handle:", b.get("k"))
    del a, b
# --8<-- [end:tcpstore]


# --8<-- [start:init_store]
class LoggingStore(dist.Store):
    """Forwards to a real store and remembers every key the process group touches."""

    def __init__(self, inner):
        super().__init__()
        self.inner, self.calls = inner, []

    def set(self, key, value):
        self.calls.append(f"set  {key}")
        self.inner.set(key, value)

    def get(self, key):
        self.calls.append(f"get  {key}")
        return self.inner.get(key)

    def wait(self, keys, timeout=None):
        self.calls.append(f"wait {keys}")
        return self.inner.wait(keys) if timeout is None else self.inner.wait(keys, timeout)

    def add(self, key, amount):
        self.calls.append(f"add  {key}")
        return self.inner.add(key, amount)

    def check(self, keys):
        return self.inner.check(keys)


def traced_init(rank, world_size, tmp, results):
    os.environ["GLOO_SOCKET_IFNAME"] = "lo0" if os.uname().sysname == "Darwin" else "lo"
    store = LoggingStore(dist.FileStore(os.path.join(tmp, "store"), world_size))
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world_size)
    dist.all_reduce(torch.ones(1))
    dist.destroy_process_group()
    results.put((rank, store.calls))


results = fork.Queue()
with tempfile.TemporaryDirectory() as tmp:
    procs = [fork.Process(target=traced_init, args=(rank, 2, tmp, results)) for rank in range(2)]
    with warnings.catch_warnings():  # as in run_ranks: Python 3.12+ warns on fork() beside threads
        warnings.simplefilter("ignore", DeprecationWarning)
        for p in procs:
            p.start()
    calls = dict(results.get(timeout=60) for _ in procs)
    for p in procs:
        p.join()
for rank in range(2):
    print(f"rank {rank}:", *calls[rank], sep="\n  ")
# --8<-- [end:init_store]

# --8<-- [start:rendezvous]
with tempfile.TemporaryDirectory() as tmp:
    store, rank, world_size = next(dist.rendezvous(f"file://{tmp}/rdzv", rank=0, world_size=1))
    print("file://  ->", type(store).__name__, "rank", rank, "world size", world_size)
    store, rank, world_size = next(dist.rendezvous("tcp://127.0.0.1:0", rank=0, world_size=1))
    print("tcp://   ->", type(store).__name__, "rank", rank, "world size", world_size)
    del store
saved = {k: os.environ.pop(k) for k in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE") if k in os.environ}
try:
    next(dist.rendezvous("env://"))
except ValueError as e:
    print("env://   ->", f"{type(e).__name__}: {e}")
os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "0", "RANK": "0", "WORLD_SIZE": "1"})
store, rank, world_size = next(dist.rendezvous("env://"))
print("env://   ->", type(store).__name__, "rank", rank, "world size", world_size, "(from RANK and WORLD_SIZE)")
del store
for k in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
    os.environ.pop(k)
os.environ.update(saved)
# --8<-- [end:rendezvous]
