"""A config's YAML document: its values, the line of every key path, and the one-line error.

Every error is a :class:`ConfigError` whose message names the file, the line and the key, e.g.
``configs/x.yaml:7: schemes[2]: 'svm' is not a scheme; allowed: ovr, ...``. The text is read
and parsed through the bounded loader (:mod:`multisvm_cli.yaml_loader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from ...errors import MultisvmError
from ...readers import read_text
from ...yaml_loader import own_pairs, parse

MAX_CONFIG_BYTES = 1 << 20      # a config is a page of YAML, not a megabyte


class ConfigError(MultisvmError):
    """A config file that cannot be used; the message is one line with file, line and key."""


@dataclass(frozen=True)
class Location:
    """Where a key was written in a config: a check that runs later (against the data) names
    it as ``file:line: key: message``."""

    path: Path
    line: int
    key: str

    def error(self, message) -> "ConfigError":
        return ConfigError(f"{self.path}:{self.line}: {self.key}: {message}")



class _Document:
    """A parsed YAML document plus the line of every key and list item, keyed by path tuple.

    What a config may cost is bounded before it is built (:mod:`multisvm_cli.yaml_loader`): at
    most :data:`MAX_CONFIG_BYTES` bytes, a bounded number of values once aliases are expanded,
    and a bounded nesting depth; beyond that the config is refused with one line.
    """

    def __init__(self, path: Path):
        self.path = path
        self.text = read_text(path, MAX_CONFIG_BYTES, ConfigError, "config file")
        node, self.data = parse(self.text, path, ConfigError, "config")
        self.lines = {}
        if node is not None:
            self._record(node, ())

    def _record(self, node, path):
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            merged, own = own_pairs(node)   # a merged key may be overridden by the mapping's own
            seen = set()
            for index, (key_node, value_node) in enumerate(merged + own):
                key = key_node.value
                if index >= len(merged) and key in seen:
                    self.fail(path, f"key {key!r} is given twice", line=key_node.start_mark.line + 1)
                seen.update([key] if index >= len(merged) else [])
                self.lines[path + (key,)] = key_node.start_mark.line + 1
                self._record(value_node, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._record(item, path + (index,))

    def line(self, path) -> int:
        """The line of ``path``, or of its closest enclosing key."""
        path = tuple(path)
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)

    def fail(self, path, message, line=None):
        """Raise the one-line error ``FILE:LINE: key.path: message``."""
        line = line or self.line(path)
        raise ConfigError(f"{self.path}:{line}: {_key_name(path)}: {message}")


def _key_name(path) -> str:
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or "(top level)"

