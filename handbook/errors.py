"""The one kind of error that bad input to the build raises.

A page, a file of the tree or a setting that cannot be used is reported as its
message, which names the place (page and line, block, snippet `file:line`, or the
file); the plugin and the command line show it as such, never as a traceback.
"""


class InputError(Exception):
    """Bad input to the build; the message names where it is and what is wrong."""
