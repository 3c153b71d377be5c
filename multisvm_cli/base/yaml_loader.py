"""The one bounded YAML loader: safe, YAML 1.2 numbers, and a cost known before it is built.

Configs (experiment.config) and dataset cards (data.cards) read through it. It is PyYAML's
safe loader with YAML 1.2 (core schema) numbers: ``1e2`` is a number, ``1:30`` a string (YAML
1.1 read it as the base-60 integer 90), ``010`` is ten. A document is refused with one line
(the caller's error type, naming the file) when it has more than :data:`MAX_YAML_NODES` values
once aliases are expanded (an alias bomb), nests deeper than :data:`MAX_YAML_DEPTH` levels, or
is not valid YAML, or holds a character YAML does not allow (an ESC or NUL pasted from a
terminal: ``FILE:LINE: character U+001B is not allowed; remove it``); :func:`read_yaml` also bounds the bytes read (see :mod:`.readers`).
"""

from __future__ import annotations

import re

import yaml

from .errors import MultisvmError, one_line
from .readers import read_text

MAX_YAML_NODES = 100_000        # values after expanding aliases (an alias bomb stops here)
MAX_YAML_DEPTH = 64             # nested lists and mappings; far past any config or card


MERGE_TAG = "tag:yaml.org,2002:merge"


class Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 (core schema) numbers (see the module docstring).

    A mapping with merge keys (``{<<: *g, sigma: [2]}``) is flattened as PyYAML does (the merged
    pairs first, then the mapping's own, which override them) and keeps ``merged_pairs``: how
    many of its leading pairs came from a merge, so that a duplicate-key check can tell an
    override from a key given twice (:func:`own_pairs`)."""

    def flatten_mapping(self, node):
        own = sum(1 for key, _ in node.value if key.tag != MERGE_TAG)
        merges = own != len(node.value)
        super().flatten_mapping(node)
        if merges:
            node.merged_pairs = len(node.value) - own


Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_INT_12 = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT_12 = re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                       r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
Loader.add_implicit_resolver("tag:yaml.org,2002:int", _INT_12, list("-+0123456789"))
Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12, list("-+0123456789."))


def _construct_int(loader, node):
    text = loader.construct_scalar(node)
    return int(text, 0) if text[:2] in ("0o", "0x") else int(text, 10)


def _construct_float(loader, node):
    text = loader.construct_scalar(node).lower()
    return float(text.replace(".inf", "inf").replace(".nan", "nan"))


Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def own_pairs(node):
    """(merged, own) key-value pairs of a constructed mapping node (see :class:`Loader`)."""
    cut = getattr(node, "merged_pairs", 0)
    return node.value[:cut], node.value[cut:]


def _check_cost(node, where, error, what):
    """Refuse a node graph of more than MAX_YAML_NODES values (aliases expanded) or deeper than
    MAX_YAML_DEPTH; iterative, so a recursive alias stops at the budget too."""
    budget, stack = MAX_YAML_NODES, [(node, 1)]
    while stack:
        item, level = stack.pop()
        budget -= 1
        if budget < 0:
            raise error(f"{where}: more than {MAX_YAML_NODES} values once aliases are expanded; "
                        f"a {what} is not that large (an alias bomb?)")
        if isinstance(item, (yaml.MappingNode, yaml.SequenceNode)):
            if level > MAX_YAML_DEPTH:
                raise error(f"{where}: nested too deeply to be a {what}")
            children = (v for pair in item.value for v in pair) if isinstance(
                item, yaml.MappingNode) else item.value
            stack.extend((child, level + 1) for child in children)


def _reader_message(text: str, where, exc) -> str:
    """``FILE:LINE: character U+001B is not allowed; remove it`` for a character YAML refuses
    (an ESC or NUL pasted from a terminal)."""
    line = text.count("\n", 0, exc.position or 0) + 1
    code = exc.character if isinstance(exc.character, int) else ord(exc.character)
    return f"{where}:{line}: character U+{code:04X} is not allowed; remove it"


def parse(text: str, where, error=MultisvmError, what: str = "YAML file"):
    """(root node or None, document) of ``text``: the node keeps each value's line; both are
    bounded as the module docstring says. ``where`` names the text in ``error``'s one line."""
    try:
        loader = Loader(text)
    except yaml.reader.ReaderError as exc:
        raise error(_reader_message(text, where, exc)) from None
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_cost(node, where, error, what)
        return node, (loader.construct_document(node) if node is not None else None)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"{where}:{mark.line + 1}" if mark else str(where)
        problem = getattr(exc, "problem", None) or one_line(exc)
        raise error(f"{line}: YAML syntax error: {problem}") from None
    except RecursionError:
        raise error(f"{where}: nested too deeply to be a {what}") from None
    finally:
        loader.dispose()


def load(text: str, where, error=MultisvmError, what: str = "YAML file"):
    """The document of ``text`` (see :func:`parse`)."""
    return parse(text, where, error, what)[1]


def read_yaml(path, limit: int, error=MultisvmError, what: str = "YAML file"):
    """The document in the file ``path`` (at most ``limit`` bytes of UTF-8 text)."""
    return load(read_text(path, limit, error, what), path, error, what)
