"""Reading YAML with every limit enforced while parsing, not after.

The loader consumes the parser's event stream (libyaml's when available) and
builds plain Python values itself, iteratively, so that:

* nesting deeper than :data:`MAX_DEPTH` is refused at the first level too
  deep (no recursion, so no ``RecursionError`` whatever the input);
* the node count *after alias expansion* is kept as it grows and refused at
  :data:`MAX_NODES`, so an alias bomb stops after a few thousand events and
  no consumer ever walks more than that many values;
* a mapping key written twice is refused, naming the key and both lines;
* only the standard scalar types, lists and mappings are read (no merge
  keys, no ``!!set``/``!!omap``, no custom tags);
* a plain number YAML 1.1 would read in base 60 (``16:40`` as 1000) or in
  octal (``010`` as 8) is refused, naming the value it would have been.

An anchor becomes usable when its node is complete, so a node cannot contain
an alias to itself: every value read is a finite tree.
"""

from __future__ import annotations

from typing import Any

from itsa.exceptions import InvalidInput, excerpt

#: Largest input file read (bytes), checked before reading.
MAX_BYTES = 2 * 2**20
#: Deepest nesting of lists and mappings (after alias expansion).
MAX_DEPTH = 64
#: Most nodes (scalars, lists, mappings) after alias expansion.
MAX_NODES = 200_000
#: Longest scalar (characters).
MAX_SCALAR = 10_000

_SEQ, _MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_MERGE = "tag:yaml.org,2002:merge"
_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_NO_KEY = object()


class _Frame:
    __slots__ = ("obj", "anchor", "start", "height", "key", "lines")

    def __init__(self, obj, anchor, start):
        self.obj, self.anchor, self.start, self.height = obj, anchor, start, 0
        self.key, self.lines = _NO_KEY, {}


def load_yaml(text: str, error: type[InvalidInput] = InvalidInput) -> Any:
    """The single YAML document of ``text`` as plain Python values, within the limits.

    Raises ``error`` (one line) for invalid YAML or any limit exceeded.

    Examples
    --------
    >>> load_yaml("a: &x [1, 2]\\nb: *x")
    {'a': [1, 2], 'b': [1, 2]}
    >>> load_yaml("a: 1\\na: 2")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidInput: line 2: duplicate key 'a' (first at line 1)
    """
    import yaml

    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_cls(text)
    try:
        return _Builder(error).run(loader)
    except yaml.YAMLError as exc:
        raise error(f"not valid YAML: {_yaml_message(exc)}") from None
    finally:
        loader.dispose()


def _yaml_message(exc) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    return f"{' '.join(str(problem).split())[:200]}{where}"


class _Builder:
    def __init__(self, error):
        import yaml

        self.error = error
        self.resolver = yaml.resolver.Resolver()
        self.constructor = yaml.constructor.SafeConstructor()
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int, int]] = {}     # name -> (value, nodes, height)
        self.count = 0
        self.root: Any = None
        self.scalars: dict[tuple, Any] = {}
        self.documents = 0

    def run(self, loader) -> Any:
        import yaml.events as ev

        handlers = {ev.ScalarEvent: self._on_scalar, ev.AliasEvent: self._on_alias,
                    ev.SequenceStartEvent: self._open, ev.MappingStartEvent: self._open,
                    ev.SequenceEndEvent: self._close, ev.MappingEndEvent: self._close,
                    ev.DocumentStartEvent: self._on_document}
        check, get = loader.check_event, loader.get_event
        while check():
            e = get()
            handler = handlers.get(type(e))
            if handler is not None:
                handler(e)
        return self.root

    def _on_document(self, e) -> None:
        self.documents += 1
        if self.documents > 1:
            raise self.error(f"line {_line(e)}: a second YAML document; an instance is one document")

    def _on_scalar(self, e) -> None:
        self._add(self._scalar(e), 1, 0, e.anchor, e)

    def _on_alias(self, e) -> None:
        if e.anchor not in self.anchors:
            raise self.error(f"line {_line(e)}: alias *{excerpt(e.anchor)} refers to no complete anchor")
        value, nodes, height = self.anchors[e.anchor]
        self._add(value, nodes, height, None, e)

    def _close(self, e) -> None:
        f = self.stack.pop()
        self._add(f.obj, self.count - f.start, f.height + 1, f.anchor, e, counted=True)

    # -- building ------------------------------------------------------------
    def _open(self, e) -> None:
        import yaml.events as ev

        is_map = isinstance(e, ev.MappingStartEvent)
        if e.tag not in (None, "!", _MAP if is_map else _SEQ):
            raise self.error(f"line {_line(e)}: unsupported tag {excerpt(e.tag)}")
        if len(self.stack) + 1 > MAX_DEPTH:
            raise self.error(f"line {_line(e)}: nesting deeper than {MAX_DEPTH} levels")
        self._grow(1, e)
        self.stack.append(_Frame({} if is_map else [], e.anchor, self.count - 1))

    def _grow(self, nodes: int, e) -> None:
        self.count += nodes
        if self.count > MAX_NODES:
            raise self.error(f"line {_line(e)}: more than {MAX_NODES:,} values "
                             "(after expanding aliases)")

    def _add(self, value, nodes: int, height: int, anchor, e, counted: bool = False) -> None:
        if not counted:
            if len(self.stack) + height > MAX_DEPTH:
                raise self.error(f"line {_line(e)}: nesting deeper than {MAX_DEPTH} levels "
                                 "(after expanding aliases)")
            self._grow(nodes, e)
        if anchor is not None:
            if anchor in self.anchors:
                raise self.error(f"line {_line(e)}: anchor &{excerpt(anchor)} defined twice")
            self.anchors[anchor] = (value, nodes, height)
        if not self.stack:
            self.root = value
            return
        f = self.stack[-1]
        if height > f.height:
            f.height = height
        if isinstance(f.obj, list):
            f.obj.append(value)
        elif f.key is _NO_KEY:
            line = _line(e)
            if isinstance(value, (list, dict)):
                raise self.error(f"line {line}: a mapping key must be a plain value, not a "
                                 f"{'list' if isinstance(value, list) else 'mapping'}")
            if value in f.lines:
                raise self.error(f"line {line}: duplicate key {excerpt(value)} "
                                 f"(first at line {f.lines[value]})")
            f.key = value
            f.lines[value] = line
        else:
            f.obj[f.key] = value
            f.key = _NO_KEY

    def _scalar(self, e) -> Any:
        import yaml

        key = (e.tag, e.value, e.implicit)
        hit = self.scalars.get(key, _NO_KEY)
        if hit is not _NO_KEY:
            return hit
        line = _line(e)
        if len(e.value) > MAX_SCALAR:
            raise self.error(f"line {line}: a value of {len(e.value):,} characters "
                             f"(limit {MAX_SCALAR:,}): {excerpt(e.value)}")
        tag = e.tag
        if tag is None or tag == "!":
            tag = self.resolver.resolve(yaml.ScalarNode, e.value, e.implicit)
        if tag == _MERGE:
            raise self.error(f"line {line}: merge keys (<<) are not supported")
        build = yaml.constructor.SafeConstructor.yaml_constructors.get(tag)
        if build is None or tag in (_SEQ, _MAP):
            raise self.error(f"line {line}: unsupported tag {excerpt(tag)}")
        node = yaml.ScalarNode(tag, e.value, e.start_mark, e.end_mark, e.style)
        try:
            value = build(self.constructor, node)
        except (ValueError, OverflowError, yaml.YAMLError) as exc:
            raise self.error(f"line {line}: cannot read the value {excerpt(e.value)}: "
                             f"{' '.join(str(exc).split())[:120]}") from None
        if tag in (_INT, _FLOAT) and not e.style:
            self._refuse_yaml11_number(e.value, value, line)
        if len(self.scalars) < 4096:
            self.scalars[key] = value
        return value


    def _refuse_yaml11_number(self, text: str, value, line: int) -> None:
        """YAML 1.1 reads ``16:40`` in base 60 (as 1000) and ``010`` in octal (as 8): refused, not misread."""
        if ":" in text:
            raise self.error(f"line {line}: {excerpt(text)} is a base-60 number in YAML 1.1 (read as "
                             f"{excerpt(value)}): write the number in decimal, or quote it if it is a text")
        digits = text.lstrip("+-").replace("_", "")
        if (len(digits) > 1 and digits[0] == "0" and digits.isdigit() and isinstance(value, int)
                and abs(value) != int(digits)):
            raise self.error(f"line {line}: {excerpt(text)} is an octal number in YAML 1.1 (read as {value}): "
                             "write it without the leading 0, or quote it if it is a text")


def _line(e) -> int:
    return e.start_mark.line + 1 if e.start_mark is not None else 0
