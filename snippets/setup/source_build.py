"""How the release wheel was built, and how its README says to build from source."""

# --8<-- [start:release_build]
import mmap
import pathlib
import re
import struct
import textwrap

import torch

config = torch.__config__.show()
settings = dict(re.findall(r"(\w+)=([^,]*)", next(
    line for line in config.splitlines() if "Build settings:" in line)))
flags = settings["CXX_FLAGS"].split()
print("BUILD_TYPE =", settings["BUILD_TYPE"], "| CXX_FLAGS:",
      *(f"{flag} {flag in flags}" for flag in ("-O2", "-g", "-DNDEBUG")))


def section_names(path):
    """The names of an ELF file's sections, read from its section header table."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        (table,) = struct.unpack_from("<Q", mm, 0x28)
        size, count, names_index = struct.unpack_from("<HHH", mm, 0x3A)

        def header(i):  # sh_name, sh_type, sh_flags, sh_addr, sh_offset
            return struct.unpack_from("<IIQQQ", mm, table + i * size)

        names_at = header(names_index)[4]
        starts = [names_at + header(i)[0] for i in range(count)]
        return [mm[start:mm.find(b"\0", start)].decode() for start in starts]


library = pathlib.Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
sections = section_names(library)
print("libtorch_cpu.so: DWARF sections (.debug_*):",
      [name for name in sections if name.startswith(".debug")],
      "| symbol table (.symtab):", ".symtab" in sections)
switches = {key: value for key, value in settings.items() if key.startswith("USE_")}
print(f"{len(switches)} USE_* switches:")
print(textwrap.fill(" ".join(f"{k}={v}" for k, v in switches.items()), 80,
                    initial_indent="   ", subsequent_indent="   "))
# --8<-- [end:release_build]

# --8<-- [start:readme_build]
import importlib.metadata

readme = importlib.metadata.metadata("torch").get_payload()  # this release's README.md
source = readme[readme.index("### From Source"):readme.index("### Docker Image")]
shown = []
for line in source.splitlines():
    line = line.strip()
    command = re.match(r"(git|pip|python|spin|make|ccmake|CMAKE_ONLY=1) ", line)
    switch = re.search(r"`(USE_\w+=\d)`", line)
    if command and "amd_build" not in line and line not in shown:
        shown.append(line)  # a command of the Linux build, once
    elif switch and switch.group(1) not in shown:
        shown.append(switch.group(1))  # a switch the README names
print("\n".join(shown))
lists = re.findall(r"`(setup\.py|cmake/EnvVarForwarding\.cmake)`", source)
print("the other environment variables are listed in:", sorted(set(lists)))
# --8<-- [end:readme_build]
