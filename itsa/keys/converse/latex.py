"""Proof text as LaTeX mathematics: the plain notation of a proof, typeset.

A proof's statements and expansions are mathematics throughout
(:func:`math`); its prose (lemmas, reasons, the claim) holds mathematics
among its words, which :func:`prose` finds and sets in math mode: ``R_ZΣ``
becomes ``$R_{Z\\Sigma}$``, ``Z(1,3)`` becomes ``$Z_{(1,3)}$``, the set
``{(1,1), (2,1)}`` becomes ``$\\{(1,1), (2,1)\\}$``. The output is ASCII and
needs only ``amsmath`` and ``amssymb``.
"""

from __future__ import annotations

import re

__all__ = ["math", "prose", "text"]

#: Symbols of the proofs' notation, as math-mode commands.
_SYMBOLS = {"≥": r"\geq ", "≤": r"\leq ", "−": "-", "Σ": r"\Sigma ", "∅": r"\emptyset ",
            "·": r"\cdot ", "×": r"\times ", "⊄": r"\not\subseteq ", "⊆": r"\subseteq ", "∪": r"\cup ",
            "∩": r"\cap ", "π": r"\pi ", "∈": r"\in ", "→": r"\to ", "↦": r"\mapsto ", "≠": r"\neq ",
            "…": r"\ldots ", "∖": r"\setminus ", "∎": r"\square "}

#: Prose characters outside ASCII, in text mode.
_TEXT = {"§": r"\S{}", "—": "---", "–": "--", "’": "'", "∎": r"\hfill$\square$", "…": r"\ldots{}"}

#: Words that are mathematics on their own (besides anything with a subscript, a user
#: ``(u,v)``, a set ``{...}``, an entropy ``h(...)``, a number or a single letter).
_MATH_WORDS = {"gain", "cl"}
_OPERATORS = set("=≥≤+−·×⊄⊆∪∩∈→↦≠|/\\<>") | {"\\"}
_PUNCT = ",.;:"


def math(expr: str) -> str:
    """The proof notation ``expr`` in LaTeX math (without the ``$`` around it).

    >>> math("h(Z(1,3), Z(1,4)) − h(ΣW) ≥ 1/2")
    'h(Z_{(1,3)}, Z_{(1,4)}) - h(\\\\Sigma W) \\\\geq 1/2'
    >>> math("S_8 = {(1,1), (2,1)}")
    'S_{8} = \\\\{(1,1), (2,1)\\\\}'
    >>> math("I(A; B | Z_(T_n))")
    'I(A; B \\\\mid Z_{T_{n}})'
    """
    s = expr.replace("\\", "∖").replace("{", "\x07").replace("}", "\x08")             # set braces
    s = re.sub(r"\|([^|\s]+)\|", lambda m: f"\x03{m[1]}\x04", s)                # |P|: a size
    s = s.replace(" | ", " \x05 ")                                         # I(A; B | C): a condition
    s = re.sub(r"([A-Za-z])\((\d+,\d+|u,·)\)", lambda m: f"{m[1]}_\x01({m[2]})\x02", s)   # Z(1,3)
    s = re.sub(r"\b([A-Za-z])(\d+)\b", lambda m: f"{m[1]}_\x01{m[2]}\x02", s)              # Y2
    s = re.sub(r"ΣW", "Σ W", s)
    s = _subscripts(s)
    s = re.sub(r"\b(gain|cl)\b", r"\\operatorname{\1}", s)
    for a, b in _SYMBOLS.items():
        s = s.replace(a, b)
    s = (s.replace("\x01", "{").replace("\x02", "}").replace("\x03", r"\lvert ").replace("\x04", r"\rvert ")
         .replace("\x05", r"\mid").replace("\x07", r"\{").replace("\x08", r"\}"))
    return re.sub(r" +\}", "}", re.sub(r" +", " ", s)).strip()


def _subscripts(s: str) -> str:
    """``X_i``, ``R_ZΣ``, ``X_(u,·)``, ``Z_(T_n)``: each subscript in braces (nested ones too)."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "_" and i + 1 < len(s) and s[i + 1] != "\x01":
            if s[i + 1] == "(":
                depth, j = 0, i + 1
                while j < len(s):
                    depth += {"(": 1, ")": -1}.get(s[j], 0)
                    if depth == 0:
                        break
                    j += 1
                inner = s[i + 2:j]
                inner = inner if re.fullmatch(r"[^,]*_.*", inner) else f"({inner})"
                out.append("_\x01" + _subscripts(inner) + "\x02")
                i = j + 1
                continue
            m = re.match(r"[A-Za-z0-9Σ]+", s[i + 1:])
            if m:
                out.append("_\x01" + m[0] + "\x02")
                i += 1 + len(m[0])
                continue
        out.append(s[i])
        i += 1
    return "".join(out)


def text(words: str) -> str:
    """Prose in text mode: LaTeX's special characters escaped, the rest of Unicode as commands.

    >>> text("50% of K_u & more")
    '50\\\\% of K\\\\_u \\\\& more'
    """
    out = []
    for ch in words:
        if ch in "#$%&_{}":
            out.append("\\" + ch)
        elif ch == "\\":
            out.append(r"\textbackslash{}")
        elif ch in "^~":
            out.append(rf"\{ch}{{}}")
        elif ch in _TEXT:
            out.append(_TEXT[ch])
        elif ord(ch) > 127:
            out.append(f"${_SYMBOLS.get(ch, '?').strip()}$")
        else:
            out.append(ch)
    return "".join(out)


def _is_math(core: str) -> bool:
    return bool(core) and (
        "_" in core or re.match(r"\{[\w(]|\([\d(]", core) is not None
        or re.match(r"[hHI]\(|[WXZ]\(\d|Y\d+$|ΣW", core) is not None or core in _MATH_WORDS
        or re.fullmatch(r"\d+(/\d+)?|[A-Z]\d*|[b-zπ]|\|\w+\||[Σπ∅]", core) is not None
        or all(c in _OPERATORS for c in core))


def _depth(word: str) -> int:
    return sum({"(": 1, "{": 1, ")": -1, "}": -1}.get(c, 0) for c in word)


def prose(sentence: str) -> str:
    """Prose with its mathematics in math mode.

    >>> prose("For every scheme: R_ZΣ ≥ 7/2.")
    'For every scheme: $R_{Z\\\\Sigma} \\\\geq 7/2$.'
    >>> prose("lemma for server 1, S_8 = {(1,1), (2,1)}, Y = {(1,4)}.")
    'lemma for server $1$, $S_{8} = \\\\{(1,1), (2,1)\\\\}$, $Y = \\\\{(1,4)\\\\}$.'
    >>> prose("(X(1,1) is a function of W(1,1) and Z(1,1))")
    '($X_{(1,1)}$ is a function of $W_{(1,1)}$ and $Z_{(1,1)}$)'
    """
    out: list[str] = []
    span: list[str] = []
    depth = 0

    def close(after: str = "") -> None:
        nonlocal span
        if span:
            out.append("$" + math(" ".join(span)) + "$" + text(after))
            span = []
        elif after:
            out.append(text(after))

    for word in sentence.split(" "):
        lead = ""
        after_operator = bool(span) and all(c in _OPERATORS for c in span[-1])
        if depth == 0 and not after_operator:
            while word.startswith("(") and _depth(word) > 0 and not _is_math(word):
                lead, word = lead + "(", word[1:]
        core, tail = _split_tail(word, depth)
        if depth > 0 and span:                                   # inside a bracket: still mathematics
            span.append(core)
            depth += _depth(core)
            if tail:
                close(tail)
                depth = 0
            continue
        if lead:
            close()
            out.append(text(lead))
        if _is_math(core) or after_operator and core[:1] in "({":
            span.append(core)
            depth = max(0, _depth(core))
            if tail and depth == 0:
                close(tail)
            continue
        close()
        out.append(text(word))
    close()
    return _join(out)


def _split_tail(word: str, depth: int) -> tuple[str, str]:
    """``word`` cut before its prose tail: closers it does not open, then punctuation."""
    d = depth
    for i, c in enumerate(word):
        d += {"(": 1, "{": 1, ")": -1, "}": -1}.get(c, 0)
        if d < 0:
            return word[:i], word[i:]
    core = word.rstrip(_PUNCT) if d == 0 else word
    return core, word[len(core):]


def _join(parts: list[str]) -> str:
    """The pieces of a sentence, one space between words (none before a tail)."""
    s = ""
    for p in parts:
        s += p if not s or s.endswith("(") or p[:1] in _PUNCT + ")" else " " + p
    return s
