"""The public names: every name ``import itsa`` exported before the key-rate part moved under
``itsa.keys`` still imports, and the old room names still reach their rooms."""

import importlib

import pytest

import itsa

#: ``itsa.__all__`` as it stood before the move (a list kept by hand: a name leaves it only
#: with a note in the README's changes).
PUBLIC = [
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
    'simulate_plan',
]


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_still_imports(name):
    assert name in itsa.__all__
    assert getattr(itsa, name) is not None


@pytest.mark.parametrize("room", ["model", "bounds", "schemes", "search", "converse", "optimum",
                                  "auditor", "output", "census", "examples"])
def test_the_old_room_names_reach_the_key_rate_part(room):
    assert getattr(itsa, room) is importlib.import_module(f"itsa.keys.{room}")
    assert getattr(itsa.keys, room) is getattr(itsa, room)


def test_the_key_rate_names_live_under_keys():
    assert itsa.solve.__module__ == "itsa.keys.optimum"
    assert itsa.Instance.__module__ == "itsa.keys.model.instance"
    assert itsa.verify.__module__ == "itsa.keys.schemes.verifier"
