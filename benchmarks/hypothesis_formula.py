"""The first hypothesis formula tried before itsa's corrected converse (a record, not a bound).

``c' = |((S'∩K_k) ∪ T) ∩ S̄| + |U'\\{k}| - [D' = K]`` with ``S' = S_m \\ T_n``,
``U'`` = ``U^(m,n)`` without the servers inside ``T_n`` and ``S̄`` the paper's;
the bound tried was ``min{max c', K-1}``. Verified schemes beat it
(``docs/audit.md`` §3), so it is kept here for :mod:`probe_converse` only.
:func:`explain` sets, per configuration, the paper's ``c``, this ``c'`` and
the term of the corrected converse side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

from itsa.keys.bounds.corrected import _Chain, structure
from itsa.keys.model.instance import Instance
from itsa.keys.model.quantities import configurations
from itsa.typing import Config


@dataclass(frozen=True)
class ConfigExplanation:
    """Per configuration: the paper's ``c``, the hypothesis' ``c'`` and the proved term."""

    config: Config
    paper_c: int
    hypothesis_c: int
    pure_groups: int
    all_pure: bool
    term: int            # H(Z_{K\\T} | Z_T) >= term (Lemma with Y = K \\ T)
    chained: int         # g(T_n) + term


def explain(instance: Instance) -> list[ConfigExplanation]:
    """One row per configuration ``(k, m, n)``: how the three formulas see it."""
    conf = configurations(instance)
    sbar = conf.S_bar
    ch = _Chain(instance)
    out = []
    for n in range(1, instance.N + 1):
        T = instance.collusion_sets[n - 1]
        gT = ch.g(T)
        for m in range(1, instance.M + 1):
            for k in range(1, instance.U + 1):
                s = structure(instance, k, m, n)
                out.append(ConfigExplanation((k, m, n), int(conf.c[k - 1, m - 1, n - 1]),
                                             _hyp_c(instance, sbar, k, m, n), s.n_pure, s.all_pure,
                                             s.term, gT + s.term))
    return out


def _hyp_c(instance: Instance, sbar: int, k: int, m: int, n: int) -> int:
    S = instance.security_sets[m - 1]
    T = instance.collusion_sets[n - 1]
    Sp = S & ~T
    Ks = instance.server_masks
    Uset = [u for u, Ku in enumerate(Ks, 1) if Sp & Ku and (S | T) & Ku == Ku]
    KU = 0
    for u in Uset:
        KU |= Ks[u - 1]
    D = (Sp & Ks[k - 1]) | KU | T
    c = (((Sp & Ks[k - 1]) | T) & sbar).bit_count() + len([u for u in Uset if u != k])
    return c - (1 if D == instance.full_mask else 0)


def hypothesis_bound(instance: Instance) -> int:
    """``min{max c', K-1}`` (module notes): **not** a proved bound."""
    conf = configurations(instance)
    best = max(_hyp_c(instance, conf.S_bar, k, m, n)
               for n in range(1, instance.N + 1) for m in range(1, instance.M + 1)
               for k in range(1, instance.U + 1))
    return min(best, instance.K - 1)


def main(argv=None) -> int:
    """Print the formula beside the corrected converse on shipped instances (a record, not a bound)."""
    import argparse

    from itsa import examples
    from itsa.keys.bounds.corrected import corrected_lower_bound

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", metavar="EXAMPLE", help="shipped instances (default: all)")
    ap.add_argument("--smoke", action="store_true", help="example-1 only (the smoke test)")
    args = ap.parse_args(argv)
    names = ["example-1"] if args.smoke else (args.names or list(examples.names()))
    print(f"{'instance':36} {'formula':>7} {'corrected':>9}")
    for name in names:
        inst = examples.load(name)
        print(f"{name:36} {hypothesis_bound(inst):>7} {str(corrected_lower_bound(inst).value):>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
