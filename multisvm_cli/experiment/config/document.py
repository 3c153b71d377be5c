"""A config's YAML document: its values, the line of every key path, and the one-line error.

Every error is a :class:`ConfigError` whose message names the file, the line and the key, e.g.
``configs/x.yaml:7: schemes[2]: 'svm' is not a scheme; allowed: ovr, ...``. The text is read
and parsed through the bounded loader (:mod:`multisvm_cli.base.yaml_loader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from ...base.errors import MultisvmError
from ...base.readers import read_text
from ...base.yaml_loader import own_pairs, parse

MAX_CONFIG_BYTES = 1 << 20      # a config is a page of YAML, not a megabyte


MAX_ERRORS = 20                 # a config's independent errors reported at once


class ConfigError(MultisvmError):
    """A config file that cannot be used; the message is one line with file, line and key.

    ``lines``: the error's lines, one per independent problem (the CLI prints each as
    ``error: ...``); the message itself stays one line (the lines joined by "; ")."""

    def __init__(self, message, lines=None):
        super().__init__(message)
        self.lines = list(lines) if lines else [message]

    @classmethod
    def several(cls, errors) -> "ConfigError":
        """One error carrying ``errors`` (messages; at most MAX_ERRORS kept)."""
        kept = list(errors)[:MAX_ERRORS]
        if len(kept) == 1:
            return cls(kept[0])
        return cls(f"{len(kept)} errors: " + "; ".join(kept), kept)


class Errors:
    """Collects the independent errors of a config: ``attempt(check, *args)`` runs a check and
    returns its value, or ``default`` after recording its error; :meth:`raise_any` raises them
    together (:meth:`ConfigError.several`)."""

    def __init__(self):
        self.messages = []

    def attempt(self, check, *args, default=None, **kwargs):
        try:
            return check(*args, **kwargs)
        except ConfigError as exc:
            self.messages += exc.lines
            return default

    def raise_any(self):
        if self.messages:
            raise ConfigError.several(self.messages)


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

    What a config may cost is bounded before it is built (:mod:`multisvm_cli.base.yaml_loader`): at
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

