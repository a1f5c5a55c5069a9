"""The bad-input campaign (issue 13): mutated resource-manager output through the whole path.

Recorded squeue/sinfo/scontrol/qstat/pbsnodes outputs (tests/adapters/data) are mutated
(byte flips, truncations, huge numbers, deep nesting, duplicated records, hostlist bombs,
impossible array specs...) and pushed through parse -> check_snapshot -> run_cycle ->
Store.save_cycle; prints one row per kind of mutation (tests/reliability/campaign.py).
Exits 1 when any case raised, took over 2 s, or lost a record without a warning.

    python benchmarks/bad_input.py [--cases N] [--seed S]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.reliability.campaign import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
