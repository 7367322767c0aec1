"""Deprecated alias of :mod:`itsa.testing.hostile` (the test helpers left the library)."""

import warnings

from .testing import hostile as _moved

globals().update({k: v for k, v in vars(_moved).items() if not k.startswith("__")})
warnings.warn("itsa._hostile is deprecated: import itsa.testing.hostile", DeprecationWarning, stacklevel=2)
