"""``python -m kgroups_rs``: the same as the ``kgroups-rs`` command."""

import sys

from .cli import main

sys.exit(main())
