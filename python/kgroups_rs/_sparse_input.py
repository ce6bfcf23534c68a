"""Dispatch of scipy.sparse kernels (scipy is optional: imported only when given one)."""

from __future__ import annotations

from typing import Any, Callable


class Runner:
    """A kernel ready for the core: its size ``n`` and a call running the clustering."""

    def __init__(self, n: int, call: Callable[..., Any]) -> None:
        self.n = n
        self._call = call

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(*args, **kwargs)


def is_sparse(G: Any) -> bool:
    """True for scipy.sparse matrices and arrays, without importing scipy otherwise."""
    module = type(G).__module__
    if not module.startswith("scipy.sparse"):
        return False
    import scipy.sparse

    return bool(scipy.sparse.issparse(G))


def sparse_runner(G: Any) -> Runner:
    """Sparse kernels are not supported yet."""
    raise TypeError(
        "scipy.sparse kernel matrices are not supported yet; pass a dense numpy array "
        "(G.toarray())"
    )
