"""Writing a file so that a failure never leaves it half written (figures, labels)."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Union

__all__ = ["PathLike", "write_atomically", "write_target"]

PathLike = Union[str, "os.PathLike[str]"]


def write_target(path: PathLike) -> Path:
    """The file that writing ``path`` replaces: ``path`` itself, or the file a symlink names.

    Parameters
    ----------
    path : str or os.PathLike
        The output path as the user gave it.

    Returns
    -------
    pathlib.Path
        ``path`` with a symlink resolved (so that writing keeps the link and updates its
        target, as writing through the link would); otherwise ``path`` unchanged.
    """
    target = Path(path)
    return Path(os.path.realpath(target)) if target.is_symlink() else target


def _new_file_mode(target: Path) -> int:
    """The permission bits for the file replacing ``target``: those of the file it replaces,
    or the usual ``0o666`` less the umask for a new file (``mkstemp`` makes files ``0o600``)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomically(path: PathLike, write: Callable[[BinaryIO], None]) -> Path:
    """Write a file through ``write(handle)`` and move it into place only once it is complete.

    ``write`` receives a binary file object on a temporary file in the directory of the
    target; after it returns the file is flushed to disk, given the permissions of the file it
    replaces (or the umask's for a new file) and renamed over the target with ``os.replace``.
    If anything fails -- ``write`` itself, the disk, an interrupt -- the temporary file is
    removed and the exception propagates: an existing file at ``path`` is left as it was.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write. Exactly this name is written (no suffix is added). A symlink is
        followed: its target is replaced, the link kept.
    write : callable
        ``write(handle)`` writes the whole content to the binary file object ``handle``.

    Returns
    -------
    pathlib.Path
        The file written (``path``, or the target of the symlink ``path``).

    Raises
    ------
    OSError
        When the temporary file cannot be created, written or renamed.
    """
    target = write_target(path)
    mode = _new_file_mode(target)
    fd, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    return target
