"""The one vocabulary for choosing the search: ``algorithm`` in every public entry point.

``"hartigan"`` is kernel k-groups (a point moves when that strictly improves the objective);
``"lloyd"`` is batch kernel k-means (all points go to their nearest mean, then the means are
updated); ``"lloyd-online"`` is the paper's online kernel k-means (a point moves to its nearest
mean at once). Functions, estimators and the command line all spell them this way.
"""

from __future__ import annotations

import warnings
from typing import Literal, Optional

#: The searches, in the spelling every public entry point uses.
Algorithm = Literal["hartigan", "lloyd", "lloyd-online"]
ALGORITHMS: tuple[str, ...] = ("hartigan", "lloyd", "lloyd-online")
#: The Lloyd searches, for entry points that are kernel k-means by name.
LLOYD_ALGORITHMS: tuple[str, ...] = ("lloyd", "lloyd-online")

# The deprecated ``variant`` argument of the kernel k-means entry points.
_VARIANTS = {"batch": "lloyd", "online": "lloyd-online"}


def check_algorithm(algorithm: object, allowed: tuple[str, ...] = ALGORITHMS) -> str:
    """``algorithm`` if it is one of ``allowed``; ValueError naming the choices otherwise."""
    if not isinstance(algorithm, str) or algorithm not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"algorithm must be one of {choices}; got {algorithm!r}")
    return algorithm


def algorithm_from_variant(algorithm: str, variant: Optional[str], owner: str) -> str:
    """Resolve the deprecated ``variant`` of ``owner`` ("batch"/"online") into ``algorithm``.

    ``variant`` wins when given (with a ``FutureWarning``), since a caller who passes it means
    it; a ``variant`` that contradicts an explicit non-default ``algorithm`` is an error.
    """
    if variant is None:
        return check_algorithm(algorithm, LLOYD_ALGORITHMS)
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be 'batch' or 'online'; got {variant!r}")
    replacement = _VARIANTS[variant]
    if algorithm not in ("lloyd", replacement):
        raise ValueError(
            f"{owner}: variant={variant!r} contradicts algorithm={algorithm!r}; pass only "
            f"algorithm (variant is deprecated)"
        )
    warnings.warn(
        f"{owner}: `variant` is deprecated since 0.2.0 and will be removed in 0.3.0; use "
        f"algorithm={replacement!r} instead of variant={variant!r}",
        FutureWarning,
        stacklevel=3,
    )
    return replacement
