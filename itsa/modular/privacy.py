"""Privacy of authorized releases (§VII), through :mod:`itsa.privacy`: no second accountant here.

Until :mod:`itsa.privacy` is present, its checks are reported as not computed.
"""

from __future__ import annotations

from itsa.modular.audit import Check, Status

__all__ = ["privacy_checks"]


def privacy_checks() -> list[Check]:
    """The §VII and §IX-D privacy values, or one deferred check when :mod:`itsa.privacy` is absent."""
    return [Check("privacy", "§VII, §IX-D", "τ at s̃ = 1/2; ε = 2.00 against 2.00, 2.92, 3.65, 4.29",
                  "not computed", Status.DEFERRED, "needs itsa.privacy's accountant", "itsa modular audit")]
