"""Reading a sweep file's YAML safely: duplicate keys are errors, alias bombs are refused before
they expand, and a field that names a secret (``api_key``, ``token``...) is refused without
echoing its value. Every problem is a ``DataError`` naming the file and line."""

from __future__ import annotations

import re
from typing import Any

import yaml

from relreason.errors import DataError

MAX_EXPANDED_NODES = 100_000
"""The most values a sweep file may hold once its aliases are expanded."""

_SECRET_FIELD = re.compile(
    r"^(.*[_-])?(api[_-]?key|apikey|key|secret|token|password|passwd|authorization|bearer)$",
    re.IGNORECASE,
)


class _StrictLoader(yaml.SafeLoader):
    """``SafeLoader`` that refuses duplicate keys in a mapping."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            continue
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {key!r} (first on line {seen[key]})",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line + 1
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    """How many nodes ``node`` stands for once aliases are expanded (shared nodes counted once
    per use, computed once each)."""
    known = memo.get(id(node))
    if known is not None:
        return known
    memo[id(node)] = 1  # a cycle counts once (safe_load would refuse it anyway)
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, memo) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    memo[id(node)] = size
    return size


def _secret_field(value: Any, path: str = "") -> str | None:
    if isinstance(value, dict):
        for key, child in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and _SECRET_FIELD.search(key):
                return where
            found = _secret_field(child, where)
            if found:
                return found
    elif isinstance(value, list):
        for position, child in enumerate(value):
            found = _secret_field(child, f"{path}[{position}]")
            if found:
                return found
    return None


def load_yaml(text: str, source: str) -> tuple[Any, yaml.Node | None]:
    """Return the data and the node tree of the YAML ``text`` read from ``source``.

    Raises ``DataError`` for invalid YAML, a duplicate key, more than
    :data:`MAX_EXPANDED_NODES` values after alias expansion, or a field naming a secret.
    """
    try:
        root = yaml.compose(text, Loader=_StrictLoader)
        size = 0 if root is None else _expanded_size(root, {})
        if size > MAX_EXPANDED_NODES:
            raise DataError(
                source,
                f"too large once its aliases are expanded ({size} values; at most "
                f"{MAX_EXPANDED_NODES})",
            )
        data = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        problem = getattr(error, "problem", None) or str(error)
        raise DataError(source, f"not valid YAML: {problem}", item=where) from None
    except RecursionError:
        raise DataError(source, "nested too deeply") from None
    secret = _secret_field(data)
    if secret is not None:
        raise DataError(
            source,
            "sweep files may not hold keys or other secrets (the value is not shown); set the "
            "key in the environment instead (e.g. OPENAI_API_KEY, ANTHROPIC_API_KEY)",
            field=secret,
        )
    return data, root
