"""Conversions of Python arguments into what the Rust core takes.

The rules about values (k within 1..n, labels, weights, counts, finiteness, symmetry) live
in the core (``src/validate``), whose errors name arguments as this API spells them. This
module turns Python objects into the exact dtypes and layouts the core borrows, raises
``TypeError`` for objects of the wrong kind, and ``ValueError`` only for what cannot reach
the core (an integer beyond 64 bits, an array of the wrong number of dimensions) or for
arguments only Python checks.
"""

from __future__ import annotations

import numbers
import os
import secrets
from collections.abc import Sequence
from typing import Any, Literal, Optional, Protocol, Union

import numpy as np
import numpy.typing as npt

#: What ``random_state`` accepts, as in scikit-learn.
RandomState = Union[None, int, np.integer, np.random.Generator, np.random.RandomState]

_SEED_BOUND = 2**64


def seed_from_random_state(random_state: RandomState) -> int:
    """A 64-bit seed from ``random_state``.

    ``None`` draws fresh entropy from the operating system; an integer ``>= 0`` is used as
    is (modulo 2**64); a numpy ``Generator`` or ``RandomState`` provides one draw.
    """
    if random_state is None:
        return secrets.randbits(64)
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError("random_state must be None, an int >= 0 or a numpy Generator, not a bool")
    if isinstance(random_state, (numbers.Integral, np.integer)):
        value = int(random_state)
        if value < 0:
            raise ValueError(f"random_state must be >= 0, got {value}")
        return value % _SEED_BOUND
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, _SEED_BOUND, dtype=np.uint64))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63, dtype=np.int64))
    raise TypeError(
        "random_state must be None, an int >= 0, a numpy Generator or RandomState, "
        f"not {type(random_state).__name__}"
    )


#: The core's upper bound on ``n_threads`` (``validate::MAX_THREADS``), for scikit-learn's
#: parameter constraints.
MAX_THREADS = 1024

#: The largest integer the core's counts (64-bit unsigned) can hold.
_CORE_INT_MAX = 2**64 - 1


def _integer(value: Any, name: str) -> int:
    """``value`` as a Python int; TypeError for anything else (bools included)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} ({value!r})")
    return int(value)


def as_count(value: Any, name: str) -> int:
    """``value`` as a Python int that the core can receive; the core checks its range.

    TypeError for non-integers (bools included). ValueError naming ``name`` only for integers
    that cannot reach the core: negative ones (every count is at least 1) and those beyond
    64 bits.
    """
    number = _integer(value, name)
    if number < 0:
        raise ValueError(f"{name} must be at least 1, got {number}")
    if number > _CORE_INT_MAX:
        raise ValueError(f"{name} = {number} is too large: it does not fit in 64 bits")
    return number


def check_int(value: Any, name: str, minimum: int, maximum: Optional[int] = None) -> int:
    """``value`` as a Python int in ``[minimum, maximum]`` (without ``maximum``: at least
    ``minimum`` and within what the core can receive). TypeError for non-integers (bools
    included); ValueError stating the rule, in the core's words, when out of range."""
    number = _integer(value, name)
    if maximum is not None and not minimum <= number <= maximum:
        raise ValueError(f"{name} must be between {minimum} and {maximum}, got {number}")
    if number < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {number}")
    return as_count(number, name)


def available_cores() -> int:
    """The number of CPUs this process may run on (its affinity mask where the system has
    one, as the core's thread pool counts them), at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def check_n_threads(n_threads: Optional[int]) -> Optional[int]:
    """``None`` (all cores) or the thread count in ``[1, MAX_THREADS]``.

    ``None`` and ``-1`` mean all cores. Other negative values follow joblib's convention:
    ``n_cores + 1 + n_threads`` threads, so ``-2`` is all cores but one; a value that leaves
    fewer than one thread is refused, as is 0.
    """
    if n_threads is None:
        return None
    number = _integer(n_threads, "n_threads")
    if number == -1:
        return None
    if number <= 0:
        cores = available_cores()
        resolved = cores + 1 + number
        if number == 0 or resolved < 1:
            raise ValueError(
                f"n_threads = {number} leaves no thread on this machine ({cores} cores): pass a "
                "positive count, None or -1 for all cores, or -2, -3, ... for all cores but 1, 2, ..."
            )
        return min(resolved, MAX_THREADS)
    return check_int(number, "n_threads", 1, MAX_THREADS)


def as_float_array(values: Any, name: str) -> npt.NDArray[np.float64] | npt.NDArray[np.float32]:
    """``values`` as a float64 or float32 numpy array.

    float64 and float32 arrays are returned as they are (no copy). Integer, boolean and other
    real floating dtypes are converted to float64 (one copy). Complex, object and string
    data raise ``TypeError``.
    """
    array = np.asarray(values)
    if array.dtype == np.float64 or array.dtype == np.float32:
        return array
    if array.dtype.kind in "biuf":
        return array.astype(np.float64)
    raise TypeError(
        f"{name} must hold real numbers (float64 or float32; integers are converted), "
        f"got dtype {array.dtype}"
    )


def as_kernel_matrix(G: Any) -> npt.NDArray[np.float64] | npt.NDArray[np.float32]:
    """A dense kernel matrix the core can borrow without copying.

    float64/float32 arrays that are C- or F-contiguous pass through untouched (a symmetric
    matrix in F order is its own transpose). Anything else is converted once: other real
    dtypes to float64, other layouts (strided views) to a C-contiguous copy.
    """
    array = as_float_array(G, "G")
    if array.ndim != 2:
        raise ValueError(f"G must be a 2-D (n, n) kernel matrix, got an array with shape {array.shape}")
    if array.shape[0] != array.shape[1]:
        raise ValueError(f"G must be square (n, n), got shape {array.shape}")
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        return np.ascontiguousarray(array, dtype=array.dtype)  # type: ignore[return-value]
    return array


def as_weights(weights: Any) -> Optional[npt.NDArray[np.float64]]:
    """``None`` or a contiguous 1-D float64 vector; its length and values are checked by the
    core."""
    if weights is None:
        return None
    array = as_float_array(weights, "weights")
    if array.ndim != 1:
        raise ValueError(
            f"weights must be a 1-D array (one weight per point), got shape {array.shape}"
        )
    return np.ascontiguousarray(array, dtype=np.float64)


def as_init(init: Any) -> tuple[str, Optional[npt.NDArray[np.int64]]]:
    """Split ``init`` into a method name and optional 1-D int64 labels; their length and
    values are checked by the core."""
    if isinstance(init, str):
        if init not in ("k-means++", "random", "spectral"):
            raise ValueError(
                "init must be 'k-means++', 'random', 'spectral' or an array of n labels, "
                f"got {init!r}"
            )
        return init, None
    labels = np.asarray(init)
    if labels.dtype.kind not in "iu" or labels.dtype == np.bool_:
        raise TypeError(
            "init labels must be an integer array of n labels in 0..k-1, "
            f"got dtype {labels.dtype}"
        )
    if labels.ndim != 1:
        raise ValueError(
            f"init labels must be a 1-D array (one label per point), got shape {labels.shape}"
        )
    return "labels", np.ascontiguousarray(labels, dtype=np.int64)


#: The initialisations named by a string.
InitMethod = Literal["k-means++", "random", "spectral"]


class SupportsArray(Protocol):
    """What numpy converts to an array (``__array__``): numpy, pandas or dask arrays."""

    def __array__(self) -> Any: ...


#: ``init``: a method's name, or initial labels (an integer array or a sequence of ints).
#: Not ``ArrayLike``, which admits any string and so would let ``init="kmeans"`` through.
Init = Union[InitMethod, SupportsArray, Sequence[int]]


def splitmix(seed: int) -> int:
    """A second seed derived from ``seed`` (so landmarks and starts use different streams)."""
    z = (seed + 0x9E3779B97F4A7C15) % 2**64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return z ^ (z >> 31)
