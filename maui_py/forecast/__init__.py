"""Start forecasts with a range (issue 36): each queued job's start as p10 / p50 / p90 of K
replays forward through the same cycle, runtimes drawn from the users' recent
runtime/request ratios, beside the plan's point estimate (what showstart answers)."""

from .accuracy import Accuracy, accuracy
from .engine import Forecast, ForecastOptions, Moment, forecast
from .runtimes import draw_runtime, ratios, spans

__all__ = ["Accuracy", "Forecast", "ForecastOptions", "Moment", "accuracy", "draw_runtime",
           "forecast", "ratios", "spans"]
