"""Deprecated alias of :mod:`itsa.testing.oracles` (the test helpers left the library)."""

import warnings

from .testing import oracles as _moved

globals().update({k: v for k, v in vars(_moved).items() if not k.startswith("__")})
warnings.warn("itsa._plain is deprecated: import itsa.testing.oracles", DeprecationWarning, stacklevel=2)
