"""itsa: information-theoretic secure aggregation, analysed, built and verified exactly.

Built on Li, Zhang, He, Caire, "Multi-Server Secure Aggregation with Arbitrary
Collusion and Heterogeneous Security Constraints" (arXiv 2604.26391).

``itsa.verify`` and ``itsa.audit`` are both the module and its function: the
module can be called, so ``itsa.verify(instance, scheme)`` runs the check and
``itsa.verify.ENGINES`` reads the module's constant.

>>> import itsa
>>> itsa.verify.ENGINES, "converse-beaten" in itsa.audit.FINDING_KINDS
(('auto', 'rank', 'enumerate'), True)
>>> itsa.verify(itsa.examples.example1(), itsa.examples.scheme("example-1")).ok
True
"""

import inspect as _inspect
import sys as _sys
import types as _types

from . import examples
from .analysis import REGIMES, Analysis, Bound, Regime, analyze, decide_regime
from .audit import FINDING_KINDS, Audit, Finding, audit
from .bounds import CorrectedBound, corrected_lower_bound
from .constructions import CONSTRUCTIONS, Build, build_scheme, default_field, required_field
from .draw import LAYOUTS, DrawnFigure, draw_instance, instance_figure
from .external import KnownOptimum, homogeneous_parameters, known_optimum
from .exceptions import (Infeasible, InvalidInput, InvalidInstance, InvalidOption, InvalidOutputPath,
                         InvalidScheme, ItsaError, MissingExtra, VerificationError)
from .instance import Instance
from .instance_io import load_instance, parse_instance
from .lp import LP_SOLVERS, LPConstraint, LPResult, theorem2_lp
from .quantities import Q_RULES, Configurations, SetQuantities, configurations, set_quantities
from .optimum import Solution, solve
from .search import SearchResult, search_min_rate
from .scheme import Scheme, load_scheme, save_scheme, scheme_from_dict, scheme_to_dict
from .vector_search import VectorSearchResult, search_vector_scheme
from .verify import ENGINES, Leak, Verdict, verify

__all__ = [
    "REGIMES", "Regime", "Q_RULES", "LP_SOLVERS",
    "Instance", "load_instance", "parse_instance",
    "Configurations", "SetQuantities", "configurations", "set_quantities",
    "LPConstraint", "LPResult", "theorem2_lp",
    "Analysis", "Bound", "analyze", "decide_regime",
    "Scheme", "load_scheme", "save_scheme", "scheme_from_dict", "scheme_to_dict",
    "ENGINES", "Leak", "Verdict", "verify",
    "CONSTRUCTIONS", "Build", "build_scheme", "default_field", "required_field",
    "Solution", "solve", "SearchResult", "search_min_rate", "VectorSearchResult", "search_vector_scheme",
    "CorrectedBound", "corrected_lower_bound",
    "KnownOptimum", "homogeneous_parameters", "known_optimum",
    "FINDING_KINDS", "Audit", "Finding", "audit",
    "LAYOUTS", "DrawnFigure", "draw_instance", "instance_figure",
    "ItsaError", "InvalidInstance", "Infeasible", "VerificationError",
    "InvalidInput", "InvalidScheme", "InvalidOption", "InvalidOutputPath", "MissingExtra",
    "examples",
]


class _CallableModule(_types.ModuleType):
    """A module that runs its namesake function when called (``itsa.verify(...)``)."""

    def __call__(self, *args, **kwargs):
        return getattr(self, self.__name__.rpartition(".")[2])(*args, **kwargs)


def _callable_module(name: str) -> _types.ModuleType:
    module = _sys.modules[f"{__name__}.{name}"]
    module.__class__ = _CallableModule
    module.__signature__ = _inspect.signature(getattr(module, name))
    return module


# The functions imported above shadowed their modules; the modules, callable, take their place.
verify = _callable_module("verify")
audit = _callable_module("audit")
