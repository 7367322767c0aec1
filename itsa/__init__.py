"""itsa: information-theoretic secure aggregation, analysed, built and verified exactly.

A secure aggregation has three numbers to size, and itsa answers each
exactly, in its own part, on one foundation:

- **keys** (Li, Zhang, He, Caire, "Multi-Server Secure Aggregation with
  Arbitrary Collusion and Heterogeneous Security Constraints"): ``itsa.keys.model``
  (the instance, its YAML form, the set quantities), ``itsa.keys.bounds`` (the
  paper's analysis, the Theorem-2 LP, the corrected bound), ``itsa.keys.schemes``
  (key schemes, their constructions, the exact verifier), ``itsa.keys.search``,
  ``itsa.keys.converse`` (certified converse LPs and their proofs),
  ``itsa.keys.optimum`` and ``itsa.keys.auditor`` (``solve`` and ``audit``),
  ``itsa.keys.output`` and ``itsa.keys.census``;
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

from itsa import keys as _keys

if TYPE_CHECKING:                       # the names, for type checkers and editors
    import itsa.keys.examples as examples
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
    from itsa.keys.auditor import FINDING_KINDS, Audit, Finding, audit
    from itsa.keys.bounds.analysis import REGIMES, Analysis, Bound, Regime, analyze, decide_regime
    from itsa.keys.bounds.corrected import CorrectedBound, corrected_lower_bound
    from itsa.keys.bounds.lp import LP_SOLVERS, LPConstraint, LPResult, theorem2_lp
    from itsa.keys.bounds.published import KnownOptimum, homogeneous_parameters, known_optimum
    from itsa.keys.model.instance import Instance
    from itsa.keys.model.io import load_instance, parse_instance
    from itsa.keys.model.quantities import Q_RULES, Configurations, SetQuantities, configurations, set_quantities
    from itsa.keys.optimum import Solution, solve
    from itsa.keys.output.draw import LAYOUTS, DrawnFigure, draw_instance, instance_figure
    from itsa.keys.schemes.constructions import CONSTRUCTIONS, Build, build_scheme, default_field, required_field
    from itsa.keys.schemes.scheme import Scheme, load_scheme, save_scheme, scheme_from_dict, scheme_to_dict
    from itsa.keys.schemes.verifier import ENGINES, Leak, Verdict, verify
    from itsa.keys.search.scalar import SearchResult, search_min_rate
    from itsa.keys.search.vector import VectorSearchResult, search_vector_scheme
    from itsa.keys.secagg.parameters import SecAggParameters, secagg_parameters
    from itsa.planning import Deployment, Plan, explore_plan, load_deployment, plan
    from itsa.planning.run.from_plan import simulate_plan
    from itsa.planning.run.setup import Simulation
    from itsa.planning.run.simulate import simulate

#: Each public name and the module it is defined in: imported on first use, so that
#: ``import itsa`` (and ``itsa --help``) stays instant and a part's extra is needed only by it.
_WHERE: dict[str, tuple[str, str | None]] = {
    'REGIMES': ('itsa.keys.bounds.analysis', 'REGIMES'),
    'Regime': ('itsa.keys.bounds.analysis', 'Regime'),
    'Q_RULES': ('itsa.keys.model.quantities', 'Q_RULES'),
    'LP_SOLVERS': ('itsa.keys.bounds.lp', 'LP_SOLVERS'),
    'Instance': ('itsa.keys.model.instance', 'Instance'),
    'load_instance': ('itsa.keys.model.io', 'load_instance'),
    'parse_instance': ('itsa.keys.model.io', 'parse_instance'),
    'Configurations': ('itsa.keys.model.quantities', 'Configurations'),
    'SetQuantities': ('itsa.keys.model.quantities', 'SetQuantities'),
    'configurations': ('itsa.keys.model.quantities', 'configurations'),
    'set_quantities': ('itsa.keys.model.quantities', 'set_quantities'),
    'LPConstraint': ('itsa.keys.bounds.lp', 'LPConstraint'),
    'LPResult': ('itsa.keys.bounds.lp', 'LPResult'),
    'theorem2_lp': ('itsa.keys.bounds.lp', 'theorem2_lp'),
    'Analysis': ('itsa.keys.bounds.analysis', 'Analysis'),
    'Bound': ('itsa.keys.bounds.analysis', 'Bound'),
    'analyze': ('itsa.keys.bounds.analysis', 'analyze'),
    'decide_regime': ('itsa.keys.bounds.analysis', 'decide_regime'),
    'Scheme': ('itsa.keys.schemes.scheme', 'Scheme'),
    'load_scheme': ('itsa.keys.schemes.scheme', 'load_scheme'),
    'save_scheme': ('itsa.keys.schemes.scheme', 'save_scheme'),
    'scheme_from_dict': ('itsa.keys.schemes.scheme', 'scheme_from_dict'),
    'scheme_to_dict': ('itsa.keys.schemes.scheme', 'scheme_to_dict'),
    'ENGINES': ('itsa.keys.schemes.verifier', 'ENGINES'),
    'Leak': ('itsa.keys.schemes.verifier', 'Leak'),
    'Verdict': ('itsa.keys.schemes.verifier', 'Verdict'),
    'verify': ('itsa.keys.schemes.verifier', 'verify'),
    'CONSTRUCTIONS': ('itsa.keys.schemes.constructions', 'CONSTRUCTIONS'),
    'Build': ('itsa.keys.schemes.constructions', 'Build'),
    'build_scheme': ('itsa.keys.schemes.constructions', 'build_scheme'),
    'default_field': ('itsa.keys.schemes.constructions', 'default_field'),
    'required_field': ('itsa.keys.schemes.constructions', 'required_field'),
    'Solution': ('itsa.keys.optimum', 'Solution'),
    'solve': ('itsa.keys.optimum', 'solve'),
    'SearchResult': ('itsa.keys.search.scalar', 'SearchResult'),
    'search_min_rate': ('itsa.keys.search.scalar', 'search_min_rate'),
    'VectorSearchResult': ('itsa.keys.search.vector', 'VectorSearchResult'),
    'search_vector_scheme': ('itsa.keys.search.vector', 'search_vector_scheme'),
    'CorrectedBound': ('itsa.keys.bounds.corrected', 'CorrectedBound'),
    'corrected_lower_bound': ('itsa.keys.bounds.corrected', 'corrected_lower_bound'),
    'KnownOptimum': ('itsa.keys.bounds.published', 'KnownOptimum'),
    'homogeneous_parameters': ('itsa.keys.bounds.published', 'homogeneous_parameters'),
    'known_optimum': ('itsa.keys.bounds.published', 'known_optimum'),
    'FINDING_KINDS': ('itsa.keys.auditor', 'FINDING_KINDS'),
    'Audit': ('itsa.keys.auditor', 'Audit'),
    'Finding': ('itsa.keys.auditor', 'Finding'),
    'audit': ('itsa.keys.auditor', 'audit'),
    'LAYOUTS': ('itsa.keys.output.draw', 'LAYOUTS'),
    'DrawnFigure': ('itsa.keys.output.draw', 'DrawnFigure'),
    'draw_instance': ('itsa.keys.output.draw', 'draw_instance'),
    'instance_figure': ('itsa.keys.output.draw', 'instance_figure'),
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
    'examples': ('itsa.keys.examples', None),
    'InvalidDeployment': ('itsa.exceptions', 'InvalidDeployment'),
    'Deployment': ('itsa.planning.deployment', 'Deployment'),
    'load_deployment': ('itsa.planning.deployment', 'load_deployment'),
    'Plan': ('itsa.planning.planner', 'Plan'),
    'plan': ('itsa.planning.planner', 'plan'),
    'explore_plan': ('itsa.planning.drivers.explore', 'explore_plan'),
    'Simulation': ('itsa.planning.run.setup', 'Simulation'),
    'simulate': ('itsa.planning.run.simulate', 'simulate'),
    'simulate_plan': ('itsa.planning.run.from_plan', 'simulate_plan'),
    'SecAggParameters': ('itsa.keys.secagg.parameters', 'SecAggParameters'),
    'secagg_parameters': ('itsa.keys.secagg.parameters', 'secagg_parameters'),
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
    'InvalidDeployment', 'Deployment', 'load_deployment', 'Plan', 'plan', 'explore_plan', 'Simulation', 'simulate',
    'simulate_plan', 'SecAggParameters', 'secagg_parameters',
]


#: The rooms of the package, reachable as attributes (``itsa.privacy``) as every submodule was;
#: the key-rate rooms live in ``itsa.keys`` and are still reachable by their old names
#: (``itsa.converse`` is ``itsa.keys.converse``).
_ROOMS = ("keys", "privacy", "modular", "planning", "testing", "exceptions", "typing")
_KEY_ROOMS = _keys.ROOMS


def __getattr__(name: str):
    """A public name, imported from its module on first use; a room of the package, imported."""
    if (name in _ROOMS or name in _KEY_ROOMS) and name not in _WHERE:
        where = f"{__name__}.keys.{name}" if name in _KEY_ROOMS else f"{__name__}.{name}"
        try:
            return importlib.import_module(where)
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
    return sorted(set(__all__) | set(_ROOMS) | set(_KEY_ROOMS))
