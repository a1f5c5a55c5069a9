"""Runtime prediction for planning (issue 17): what a job is expected to run, apart from the
limit it is killed at. Pure functions over plain data; the cycle's pass that uses them is
maui_py/policy/prediction.py."""

from .correctors import CorrectionPolicy, corrected_span
from .predictors import Prediction, PredictionPolicy, learn, predict

__all__ = ["CorrectionPolicy", "Prediction", "PredictionPolicy", "corrected_span", "learn", "predict"]
