"""The command line's files: reading the data, writing outputs without losing data.

Input: a ``.npy`` array or a delimited text file (:func:`read_matrix`); every problem is a
:class:`CliError` naming the file, line and column. Output: a file is written into a
temporary file in its own directory and moved into place with ``os.replace`` only once it is
complete, so a failure (a full disk, an interrupt) leaves the old file intact and no partial
file behind; :func:`check_output` refuses, before anything is computed, a path that cannot be
written or that is the input file.
"""

from __future__ import annotations

import csv
import io
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Optional, Union

import numpy as np
import numpy.typing as npt

from .._atomic import PathLike, write_atomically, write_target
from ._common import CliError

__all__ = [
    "check_output",
    "read_matrix",
    "read_table",
    "same_file",
    "write_atomically",
    "labels_text",
    "numeric_id_column",
    "read_input",
    "Table",
    "write_labels",
    "write_target",
]


# ----------------------------------------------------------------------------- input
def _parse_cell(text: str, path: Path, line: int, column: int) -> float:
    cell = text.strip()
    try:
        value = float(cell)
    except ValueError:
        shown = repr(cell) if cell else "an empty cell"
        raise CliError(f"{path}, line {line}, column {column}: {shown} is not a number") from None
    if not np.isfinite(value):
        raise CliError(
            f"{path}, line {line}, column {column}: {cell!r} is not a finite number "
            "(NaN and infinity cannot be clustered)"
        )
    return value


def _is_number(text: str) -> bool:
    try:
        float(text.strip())
    except ValueError:
        return False
    return True


def _select(
    spec: Optional[str], header: Optional[list[str]], width: int, path: Path
) -> list[int]:
    """The 0-based column indices that ``--columns`` names: a comma-separated list of header
    names or 0-based indices (a name wins over an index when the header has it); all
    columns for None."""
    if spec is None:
        return list(range(width))
    chosen: list[int] = []
    for token in (t.strip() for t in spec.split(",")):
        if not token:
            raise CliError(f"--columns {spec!r}: an empty column name; separate columns by commas")
        if header is not None and token in header:
            index = header.index(token)
        elif token.isdigit():
            index = int(token)
            if index >= width:
                raise CliError(
                    f"--columns: column {index} does not exist: {path} has {width} columns "
                    f"(0-based indices 0 to {width - 1})"
                )
        else:
            known = "" if header is None else " (columns: " + ", ".join(repr(h) for h in header) + ")"
            extra = "" if header is not None else "; it has no header line, so give 0-based indices"
            raise CliError(f"--columns: no column named {token!r} in {path}{known}{extra}")
        if index in chosen:
            raise CliError(f"--columns: column {token!r} is given twice")
        chosen.append(index)
    return chosen


#: The input name that reads standard input (text, or a ``.npy`` array recognised by its
#: magic bytes).
STDIN = "-"
_STDIN_NAME = "<stdin>"
_NPY_MAGIC = b"\x93NUMPY"


@dataclass
class Table:
    """The data the command clusters, as read from the input.

    Attributes
    ----------
    data : ndarray of float64, shape (n, D)
        The columns chosen (all, or those of ``--columns``).
    names : list of str
        Their names: the header's, or ``"column i"`` (0-based) without one.
    id_name : str or None
        The name of the row key carried into the labels file: the first column that
        ``--columns`` leaves out (the header's name, or ``"id"``); None when every column is
        clustered.
    ids : list of str or None
        That column's cells, one per data row, as written in the input.
    """

    data: npt.NDArray[np.float64]
    names: list[str]
    id_name: Optional[str] = None
    ids: Optional[list[str]] = None


def _left_out(chosen: list[int], width: int) -> Optional[int]:
    """The first column that ``--columns`` leaves out (the row key), or None."""
    rest = [c for c in range(width) if c not in chosen]
    return rest[0] if rest else None


def _columns_hint(bad: int, header: Optional[list[str]], width: int) -> str:
    """The advice for a column of text: leave it out with ``--columns``, naming the others."""
    others = [c for c in range(width) if c != bad]
    if not others:
        return ""
    example = ",".join(header[c] if header is not None else str(c) for c in others)
    return (
        f"; column {bad + 1} holds text (an id or a name?): leave it out with --columns, "
        f"e.g. --columns {example}"
    )


def _read_text(
    lines: Iterable[str], name: str, delimiter: Optional[str], columns: Optional[str] = None
) -> Table:
    """The table of a delimited text: the lines of the file ``name`` (for the messages)."""
    path = Path(name)
    if delimiter is None:
        delimiter = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    try:
        rows = [(i, row) for i, row in enumerate(csv.reader(lines, delimiter=delimiter), 1)]
    except UnicodeDecodeError:
        raise CliError(f"{name} is not a text (CSV) file; give a .csv, .tsv or .npy file") from None
    rows = [(i, row) for i, row in rows if any(cell.strip() for cell in row)]
    header: Optional[list[str]] = None
    if rows and not any(_is_number(cell) for cell in rows[0][1]):
        header = [cell.strip() for cell in rows[0][1]]  # a header line: every cell is text
        rows = rows[1:]
    if not rows:
        raise CliError(f"{name} holds no data rows")
    width = len(rows[0][1])
    if header is not None and len(header) != width:
        raise CliError(
            f"{name}: the header line has {len(header)} names, but the first data line has "
            f"{width} values"
        )
    chosen = _select(columns, header, width, path)
    data = np.empty((len(rows), len(chosen)), dtype=np.float64)
    for r, (line, row) in enumerate(rows):
        if len(row) != width:
            raise CliError(
                f"{name}, line {line}: {len(row)} values, but the first data line has {width}"
            )
        for j, c in enumerate(chosen):
            try:
                data[r, j] = _parse_cell(row[c], path, line, c + 1)
            except CliError as exc:
                # A column of text (its first cell is not a number either), not a typo in
                # one cell: most likely an id column that --columns should leave out.
                text_column = columns is None and not _is_number(rows[0][1][c])
                hint = _columns_hint(c, header, width) if text_column else ""
                raise CliError(f"{exc}{hint}") from None
    names = [header[c] if header is not None else f"column {c}" for c in chosen]
    key = _left_out(chosen, width)
    if key is None:
        return Table(data, names)
    id_name = header[key] if header is not None and header[key] else "id"
    return Table(data, names, id_name, [row[key].strip() for _, row in rows])


def read_matrix(path: Path | str, delimiter: Optional[str] = None) -> npt.NDArray[np.float64]:
    """The data of a ``.npy`` file or a delimited text file as a float64 ``(n, D)`` array
    (every column; :func:`read_table` selects columns and gives their names)."""
    return read_table(path, delimiter)[0]


def read_table(
    path: Path | str, delimiter: Optional[str] = None, columns: Optional[str] = None
) -> tuple[npt.NDArray[np.float64], list[str]]:
    """The data of a ``.npy`` file or a delimited text file as a float64 ``(n, D)`` array,
    and the names of its columns (see :func:`read_input`)."""
    table = read_input(path, delimiter, columns)
    return table.data, table.names


def _number_text(value: Any) -> str:
    """A cell of a numeric id column as text: integers without a decimal point."""
    number = float(value)
    if number.is_integer() and abs(number) < 2**53:
        return str(int(number))
    return repr(number)


def _read_npy(
    source: Union[Path, BinaryIO], name: str, columns: Optional[str]
) -> Table:
    try:
        raw = np.load(source, allow_pickle=False)
    except ValueError as exc:
        raise CliError(f"{name} is not a readable .npy array of numbers ({exc})") from None
    if raw.dtype.kind not in "biuf":
        raise CliError(f"{name} holds {raw.dtype} data, not real numbers")
    data = np.asarray(raw, dtype=np.float64)
    if data.ndim == 1:
        data = data[:, None]
    if data.ndim != 2:
        raise CliError(f"{name} holds a {data.ndim}-D array; expected (n,) or (n, D)")
    if data.size == 0:
        raise CliError(f"{name} holds no data")
    chosen = _select(columns, None, data.shape[1], Path(name))
    bad = np.argwhere(~np.isfinite(data[:, chosen]))
    if bad.size:
        row, col = int(bad[0][0]), chosen[int(bad[0][1])]
        raise CliError(f"{name}, row {row}, column {col}: {data[row, col]} is not a finite number")
    table = Table(data[:, chosen], [f"column {c}" for c in chosen])
    key = _left_out(chosen, data.shape[1])
    if key is not None:
        table.id_name = "id"
        table.ids = [_number_text(v) for v in data[:, key]]
    return table


def read_input(
    path: Path | str, delimiter: Optional[str] = None, columns: Optional[str] = None
) -> Table:
    """The data of a ``.npy`` file or a delimited text file (``-``: standard input).

    Text files: comma-separated (tab-separated for ``.tsv``/``.tab``, or ``delimiter``), one
    point per line, an optional header line whose cells are all non-numeric, blank lines
    ignored. A one-dimensional ``.npy`` array is read as ``n`` points in one dimension.
    Standard input holds a text table, or a ``.npy`` array (recognised by its first bytes).

    ``columns`` keeps only some columns, in the order given: a comma-separated list of
    header names or 0-based column indices (``"x,y"``, ``"1,2"``), e.g. to leave out an id
    column, which need not hold numbers. The names are the header's, or ``"column i"``
    (0-based) without a header. The first column left out is kept as the row key
    (:attr:`Table.ids`).

    Raises
    ------
    CliError
        For a missing or unreadable file, a cell that is not a finite number, rows of
        different lengths, or an array that is not 1-D or 2-D real numbers.
    """
    if str(path) == STDIN:
        content = sys.stdin.buffer.read()
        if content.startswith(_NPY_MAGIC):
            return _read_npy(io.BytesIO(content), _STDIN_NAME, columns)
        try:
            text = content.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CliError(
                f"{_STDIN_NAME} is not a text (CSV) table nor a .npy array"
            ) from None
        return _read_text(io.StringIO(text, newline=""), _STDIN_NAME, delimiter, columns)
    p = Path(path)
    if not p.exists():
        raise CliError(f"no such file: {p}")
    if p.is_dir():
        raise CliError(f"{p} is a directory, not a data file")
    if p.suffix.lower() == ".npy":
        return _read_npy(p, str(p), columns)
    with p.open(newline="", encoding="utf-8-sig") as handle:
        return _read_text(handle, str(p), delimiter, columns)


def numeric_id_column(data: npt.NDArray[np.float64]) -> Optional[int]:
    """The first row number, 0 or 1, when the first column of ``data`` counts the rows.

    A first column that holds the integers ``0, 1, ..., n-1`` or ``1, 2, ..., n`` in order is
    a row id, not a measurement: clustered as a coordinate, it splits the data into ranges of
    ids. Only for at least three rows and two columns (a single column is the data itself).
    """
    n, dim = data.shape
    if n < 3 or dim < 2:
        return None
    first = float(data[0, 0])
    if first not in (0.0, 1.0):
        return None
    if not np.array_equal(data[:, 0], np.arange(n, dtype=np.float64) + first):
        return None
    return int(first)


# ----------------------------------------------------------------------------- output
def same_file(a: PathLike, b: PathLike) -> bool:
    """True when ``a`` and ``b`` name the same file (the same inode, or the same resolved path).

    Hardlinks and symlinks to one file count as the same file; so do two spellings of a path
    that does not exist yet.
    """
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return os.path.realpath(a) == os.path.realpath(b)


def labels_text(
    labels: npt.NDArray[np.int64],
    id_name: Optional[str] = None,
    ids: Optional[list[str]] = None,
    delimiter: str = ",",
) -> str:
    """The labels as a delimited table with a header: ``label``, or ``ID,label`` with the row
    key (the id column that ``--columns`` left out) first, so the rows join back."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    if ids is None:
        writer.writerow(["label"])
        writer.writerows([int(label)] for label in labels)
    else:
        writer.writerow([id_name or "id", "label"])
        writer.writerows(zip(ids, (int(label) for label in labels)))
    return buffer.getvalue()


def write_labels(
    path: str,
    labels: npt.NDArray[np.int64],
    id_name: Optional[str] = None,
    ids: Optional[list[str]] = None,
) -> Optional[Path]:
    """Write the labels as a table with a header (text), or an int64 ``.npy`` array;
    ``-`` is standard output.

    Parameters
    ----------
    path : str
        ``-`` for standard output; a name ending in ``.npy`` (any case) for a ``.npy`` array
        of the labels alone; anything else for text: a header line, then one row per data
        row (tab-separated for ``.tsv``/``.tab``, comma-separated otherwise). The file is
        written under exactly this name, through a temporary file beside it (see
        :func:`write_atomically`), so a failed write leaves an existing file intact.
    labels : ndarray of int64
        The labels.
    id_name, ids : str and list of str, optional
        A row key written before each label (the id column that ``--columns`` left out):
        the header is then ``ID_NAME,label``; otherwise ``label``.

    Returns
    -------
    pathlib.Path or None
        The file written (the target of a symlink ``path``); None for standard output.

    Raises
    ------
    OSError
        When the file cannot be written; an existing file is then unchanged.
    """
    if path == STDIN:
        sys.stdout.write(labels_text(labels, id_name, ids))
        sys.stdout.flush()
        return None
    if path.lower().endswith(".npy"):
        return write_atomically(path, lambda handle: np.save(handle, labels, allow_pickle=False))
    delimiter = "\t" if Path(path).suffix.lower() in (".tsv", ".tab") else ","
    content = labels_text(labels, id_name, ids, delimiter).encode("utf-8")

    def write_text(handle: BinaryIO) -> None:
        handle.write(content)

    return write_atomically(path, write_text)


def check_output(path: str, option: str, data: Optional[str] = None) -> None:
    """Refuse, before anything is computed, an output path that cannot be written or that
    would replace the input data file.

    Parameters
    ----------
    path : str
        The output path given with ``option``.
    option : str
        The command-line option, for the message (``-o``, ``--plot``).
    data : str, optional
        The input data file, which the output must not be (nor a link to it).

    Raises
    ------
    CliError
        If ``path`` is a directory, its directory does not exist or is not writable, it is
        an existing read-only file, or it is the input file.
    """
    target = write_target(path)
    if target.is_dir():
        raise CliError(f"cannot write {option} {path}: it is a directory; give a file name")
    directory = target.parent
    if not directory.is_dir():
        raise CliError(f"cannot write {option} {path}: the directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise CliError(f"cannot write {option} {path}: the directory {directory} is not writable")
    if target.exists() and not os.access(target, os.W_OK):
        raise CliError(f"cannot write {option} {path}: the file is read-only")
    if data is not None and Path(data).exists() and same_file(path, data):
        raise CliError(
            f"{option} {path} is the input data file {data}; writing it would destroy the data "
            "(choose another output name)"
        )
