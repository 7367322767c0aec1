"""itsa: information-theoretic secure aggregation, analysed, built and verified exactly.

Built on Li, Zhang, He, Caire, "Multi-Server Secure Aggregation with Arbitrary
Collusion and Heterogeneous Security Constraints" (arXiv 2604.26391).

The library is organised by domain, each subpackage with one job:

- ``itsa.model``: the instance, its YAML form, the shipped examples, the set quantities;
- ``itsa.bounds``: the paper's analysis, the Theorem-2 LP, the corrected bound;
- ``itsa.schemes``: key schemes, their constructions and the exact verifier;
- ``itsa.search``: searches for verified schemes;
- ``itsa.converse``: certified converse LPs and their proofs;
- ``itsa.optimum`` and ``itsa.auditor``: the pipelines behind ``solve`` and ``audit``;
- ``itsa.output``: plain-data forms, tables and figures;
- ``itsa.census``: the same work over a universe of instances.

This module only re-exports the public names.

>>> import itsa
>>> itsa.ENGINES, "converse-beaten" in itsa.FINDING_KINDS
(('auto', 'rank', 'enumerate'), True)
>>> itsa.verify(itsa.examples.example1(), itsa.examples.scheme("example-1")).ok
True
"""

from itsa.auditor import FINDING_KINDS, Audit, Finding, audit
from itsa.bounds.analysis import REGIMES, Analysis, Bound, Regime, analyze, decide_regime
from itsa.bounds.corrected import CorrectedBound, corrected_lower_bound
from itsa.bounds.lp import LP_SOLVERS, LPConstraint, LPResult, theorem2_lp
from itsa.bounds.published import KnownOptimum, homogeneous_parameters, known_optimum
from itsa.exceptions import (
                         Infeasible,
                         InvalidInput,
                         InvalidInstance,
                         InvalidOption,
                         InvalidOutputPath,
                         InvalidScheme,
                         ItsaError,
                         MissingExtra,
                         VerificationError,
)
from itsa.model import examples
from itsa.model.instance import Instance
from itsa.model.io import load_instance, parse_instance
from itsa.model.quantities import Q_RULES, Configurations, SetQuantities, configurations, set_quantities
from itsa.optimum import Solution, solve
from itsa.output.draw import LAYOUTS, DrawnFigure, draw_instance, instance_figure
from itsa.schemes.constructions import CONSTRUCTIONS, Build, build_scheme, default_field, required_field
from itsa.schemes.scheme import Scheme, load_scheme, save_scheme, scheme_from_dict, scheme_to_dict
from itsa.schemes.verifier import ENGINES, Leak, Verdict, verify
from itsa.search.scalar import SearchResult, search_min_rate
from itsa.search.vector import VectorSearchResult, search_vector_scheme

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

