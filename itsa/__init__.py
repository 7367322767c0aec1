"""itsa: information-theoretic secure aggregation, analysed, built and verified exactly.

A secure aggregation has three numbers to size, and itsa answers each
exactly, in its own part, on one foundation:

- **keys** (Li, Zhang, He, Caire, "Multi-Server Secure Aggregation with
  Arbitrary Collusion and Heterogeneous Security Constraints"): ``itsa.model``
  (the instance, its YAML form, the set quantities), ``itsa.bounds`` (the
  paper's analysis, the Theorem-2 LP, the corrected bound), ``itsa.schemes``
  (key schemes, their constructions, the exact verifier), ``itsa.search``,
  ``itsa.converse`` (certified converse LPs and their proofs),
  ``itsa.optimum`` and ``itsa.auditor`` (``solve`` and ``audit``),
  ``itsa.output`` and ``itsa.census``;
- **noise**: ``itsa.privacy``, the certified accounting of discrete Gaussian
  noise, Hamilton's integer weights and an auditable private release;
- **bits**: ``itsa.modular``, the exact carry laws and margins of layered
  modular sums, their payload, decoders and privacy;
- **the deployment**: ``itsa.planning`` (``itsa.plan``), all three at once,
  beside the heuristic practitioners use.

The foundation, ``itsa._util``, holds the one certified number, the result
protocol (``headline()``, ``rows()``, ``to_dict()``), the input checks, the
deadline and the progress events. ``docs/architecture.md`` draws the layers
and ``docs/glossary.md`` names every quantity.

This module only re-exports the public names.

>>> import itsa
>>> itsa.ENGINES, "converse-beaten" in itsa.FINDING_KINDS
(('auto', 'rank', 'enumerate'), True)
>>> itsa.verify(itsa.examples.example1(), itsa.examples.scheme("example-1")).ok
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:                       # the names, for type checkers and editors
    import itsa.examples as examples
    from itsa.auditor import FINDING_KINDS, Audit, Finding, audit
    from itsa.bounds.analysis import REGIMES, Analysis, Bound, Regime, analyze, decide_regime
    from itsa.bounds.corrected import CorrectedBound, corrected_lower_bound
    from itsa.bounds.lp import LP_SOLVERS, LPConstraint, LPResult, theorem2_lp
    from itsa.bounds.published import KnownOptimum, homogeneous_parameters, known_optimum
    from itsa.exceptions import (
        Infeasible,
        InvalidDeployment,
        InvalidInput,
        InvalidInstance,
        InvalidOption,
        InvalidOutputPath,
        InvalidScheme,
        InvalidSpec,
        ItsaError,
        MissingExtra,
        Unreachable,
        VerificationError,
    )
    from itsa.model.instance import Instance
    from itsa.model.io import load_instance, parse_instance
    from itsa.model.quantities import Q_RULES, Configurations, SetQuantities, configurations, set_quantities
    from itsa.optimum import Solution, solve
    from itsa.output.draw import LAYOUTS, DrawnFigure, draw_instance, instance_figure
    from itsa.planning import Deployment, Plan, load_deployment, plan
    from itsa.planning.simulate import simulate
    from itsa.planning.simulation import Simulation
    from itsa.schemes.constructions import CONSTRUCTIONS, Build, build_scheme, default_field, required_field
    from itsa.schemes.scheme import Scheme, load_scheme, save_scheme, scheme_from_dict, scheme_to_dict
    from itsa.schemes.verifier import ENGINES, Leak, Verdict, verify
    from itsa.search.scalar import SearchResult, search_min_rate
    from itsa.search.vector import VectorSearchResult, search_vector_scheme

#: Each public name and the module it is defined in: imported on first use, so that
#: ``import itsa`` (and ``itsa --help``) stays instant and a part's extra is needed only by it.
_WHERE: dict[str, tuple[str, str | None]] = {
    'REGIMES': ('itsa.bounds.analysis', 'REGIMES'),
    'Regime': ('itsa.bounds.analysis', 'Regime'),
    'Q_RULES': ('itsa.model.quantities', 'Q_RULES'),
    'LP_SOLVERS': ('itsa.bounds.lp', 'LP_SOLVERS'),
    'Instance': ('itsa.model.instance', 'Instance'),
    'load_instance': ('itsa.model.io', 'load_instance'),
    'parse_instance': ('itsa.model.io', 'parse_instance'),
    'Configurations': ('itsa.model.quantities', 'Configurations'),
    'SetQuantities': ('itsa.model.quantities', 'SetQuantities'),
    'configurations': ('itsa.model.quantities', 'configurations'),
    'set_quantities': ('itsa.model.quantities', 'set_quantities'),
    'LPConstraint': ('itsa.bounds.lp', 'LPConstraint'),
    'LPResult': ('itsa.bounds.lp', 'LPResult'),
    'theorem2_lp': ('itsa.bounds.lp', 'theorem2_lp'),
    'Analysis': ('itsa.bounds.analysis', 'Analysis'),
    'Bound': ('itsa.bounds.analysis', 'Bound'),
    'analyze': ('itsa.bounds.analysis', 'analyze'),
    'decide_regime': ('itsa.bounds.analysis', 'decide_regime'),
    'Scheme': ('itsa.schemes.scheme', 'Scheme'),
    'load_scheme': ('itsa.schemes.scheme', 'load_scheme'),
    'save_scheme': ('itsa.schemes.scheme', 'save_scheme'),
    'scheme_from_dict': ('itsa.schemes.scheme', 'scheme_from_dict'),
    'scheme_to_dict': ('itsa.schemes.scheme', 'scheme_to_dict'),
    'ENGINES': ('itsa.schemes.verifier', 'ENGINES'),
    'Leak': ('itsa.schemes.verifier', 'Leak'),
    'Verdict': ('itsa.schemes.verifier', 'Verdict'),
    'verify': ('itsa.schemes.verifier', 'verify'),
    'CONSTRUCTIONS': ('itsa.schemes.constructions', 'CONSTRUCTIONS'),
    'Build': ('itsa.schemes.constructions', 'Build'),
    'build_scheme': ('itsa.schemes.constructions', 'build_scheme'),
    'default_field': ('itsa.schemes.constructions', 'default_field'),
    'required_field': ('itsa.schemes.constructions', 'required_field'),
    'Solution': ('itsa.optimum', 'Solution'),
    'solve': ('itsa.optimum', 'solve'),
    'SearchResult': ('itsa.search.scalar', 'SearchResult'),
    'search_min_rate': ('itsa.search.scalar', 'search_min_rate'),
    'VectorSearchResult': ('itsa.search.vector', 'VectorSearchResult'),
    'search_vector_scheme': ('itsa.search.vector', 'search_vector_scheme'),
    'CorrectedBound': ('itsa.bounds.corrected', 'CorrectedBound'),
    'corrected_lower_bound': ('itsa.bounds.corrected', 'corrected_lower_bound'),
    'KnownOptimum': ('itsa.bounds.published', 'KnownOptimum'),
    'homogeneous_parameters': ('itsa.bounds.published', 'homogeneous_parameters'),
    'known_optimum': ('itsa.bounds.published', 'known_optimum'),
    'FINDING_KINDS': ('itsa.auditor', 'FINDING_KINDS'),
    'Audit': ('itsa.auditor', 'Audit'),
    'Finding': ('itsa.auditor', 'Finding'),
    'audit': ('itsa.auditor', 'audit'),
    'LAYOUTS': ('itsa.output.draw', 'LAYOUTS'),
    'DrawnFigure': ('itsa.output.draw', 'DrawnFigure'),
    'draw_instance': ('itsa.output.draw', 'draw_instance'),
    'instance_figure': ('itsa.output.draw', 'instance_figure'),
    'ItsaError': ('itsa.exceptions', 'ItsaError'),
    'InvalidInstance': ('itsa.exceptions', 'InvalidInstance'),
    'Infeasible': ('itsa.exceptions', 'Infeasible'),
    'VerificationError': ('itsa.exceptions', 'VerificationError'),
    'InvalidInput': ('itsa.exceptions', 'InvalidInput'),
    'InvalidScheme': ('itsa.exceptions', 'InvalidScheme'),
    'InvalidOption': ('itsa.exceptions', 'InvalidOption'),
    'InvalidOutputPath': ('itsa.exceptions', 'InvalidOutputPath'),
    'MissingExtra': ('itsa.exceptions', 'MissingExtra'),
    'InvalidSpec': ('itsa.exceptions', 'InvalidSpec'),
    'Unreachable': ('itsa.exceptions', 'Unreachable'),
    'examples': ('itsa.examples', None),
    'InvalidDeployment': ('itsa.exceptions', 'InvalidDeployment'),
    'Deployment': ('itsa.planning.deployment', 'Deployment'),
    'load_deployment': ('itsa.planning.deployment', 'load_deployment'),
    'Plan': ('itsa.planning.planner', 'Plan'),
    'plan': ('itsa.planning.planner', 'plan'),
    'Simulation': ('itsa.planning.simulation', 'Simulation'),
    'simulate': ('itsa.planning.simulate', 'simulate'),
}

__all__ = [
    'REGIMES', 'Regime', 'Q_RULES', 'LP_SOLVERS', 'Instance', 'load_instance', 'parse_instance',
    'Configurations', 'SetQuantities', 'configurations', 'set_quantities', 'LPConstraint',
    'LPResult', 'theorem2_lp', 'Analysis', 'Bound', 'analyze', 'decide_regime', 'Scheme',
    'load_scheme', 'save_scheme', 'scheme_from_dict', 'scheme_to_dict', 'ENGINES', 'Leak',
    'Verdict', 'verify', 'CONSTRUCTIONS', 'Build', 'build_scheme', 'default_field',
    'required_field', 'Solution', 'solve', 'SearchResult', 'search_min_rate', 'VectorSearchResult',
    'search_vector_scheme', 'CorrectedBound', 'corrected_lower_bound', 'KnownOptimum',
    'homogeneous_parameters', 'known_optimum', 'FINDING_KINDS', 'Audit', 'Finding', 'audit',
    'LAYOUTS', 'DrawnFigure', 'draw_instance', 'instance_figure', 'ItsaError', 'InvalidInstance',
    'Infeasible', 'VerificationError', 'InvalidInput', 'InvalidScheme', 'InvalidOption',
    'InvalidOutputPath', 'MissingExtra', 'InvalidSpec', 'Unreachable', 'examples',
    'InvalidDeployment', 'Deployment', 'load_deployment', 'Plan', 'plan', 'Simulation', 'simulate',
]


#: The rooms of the package, reachable as attributes (``itsa.converse``) as every submodule was.
_ROOMS = ("model", "bounds", "schemes", "search", "converse", "privacy", "modular", "optimum", "auditor",
          "output", "census", "planning", "testing", "exceptions", "typing", "examples")


def __getattr__(name: str):
    """A public name, imported from its module on first use; a room of the package, imported."""
    if name in _ROOMS and name not in _WHERE:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ImportError as exc:       # a room whose extra is missing (MissingExtra): not an attribute here
            raise AttributeError(f"itsa.{name} is not available: {exc}") from exc
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _WHERE[name]
    value = importlib.import_module(module)
    value = value if attr is None else getattr(value, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(_ROOMS))
