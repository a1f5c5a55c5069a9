"""Counterfactual advice (issue 36, item 4): for a queued job, what it waits for and the
smallest changes (walltime, size, QOS, class) that start it now or sooner, each checked in
a replay through the scheduler's own cycle (replay.py), never guessed."""

from .advise import Advice, Advised, advise, as_data
from .replay import Situation, start_of

__all__ = ["Advice", "Advised", "Situation", "advise", "as_data", "start_of"]
