"""TSLib's calendar features (utils/timefeatures.py), written after TSLib's code with pandas.

The C++ port (model/config/include/tsserve/model/time_features.h) is compared with these
functions on real ETTh1 dates, so they follow TSLib line by line: the same pandas
accessors, the same scalings to [-0.5, 0.5], the same feature lists per frequency, the same
float64 -> float32 step as TSLib's data loader and training loop.
"""

import re

import numpy as np
import pandas as pd
from pandas.tseries import offsets
from pandas.tseries.frequencies import to_offset


def second_of_minute(index):
    return index.second / 59.0 - 0.5


def minute_of_hour(index):
    return index.minute / 59.0 - 0.5


def hour_of_day(index):
    return index.hour / 23.0 - 0.5


def day_of_week(index):
    return index.dayofweek / 6.0 - 0.5


def day_of_month(index):
    return (index.day - 1) / 30.0 - 0.5


def day_of_year(index):
    return (index.dayofyear - 1) / 365.0 - 0.5


def month_of_year(index):
    return (index.month - 1) / 11.0 - 0.5


def week_of_year(index):
    return (index.isocalendar().week - 1) / 52.0 - 0.5


# TSLib's features_by_offsets, in its order.
_DAY = [day_of_week, day_of_month, day_of_year]
FEATURES_BY_OFFSET = [
    (offsets.YearEnd, []),
    (offsets.QuarterEnd, [month_of_year]),
    (offsets.MonthEnd, [month_of_year]),
    (offsets.Week, [day_of_month, week_of_year]),
    (offsets.Day, _DAY),
    (offsets.BusinessDay, _DAY),
    (offsets.Hour, [hour_of_day] + _DAY),
    (offsets.Minute, [minute_of_hour, hour_of_day] + _DAY),
    (offsets.Second, [second_of_minute, minute_of_hour, hour_of_day] + _DAY),
]


# TSLib's frequency strings as pandas >= 3 spells them ('t' and 'T' are gone there, month,
# quarter and year ends gained an 'E'); Debian's pandas 1.5 takes TSLib's own spellings.
_MODERN_ALIAS = {"t": "min", "m": "ME", "q": "QE", "a": "YE", "y": "YE"}


def _to_offset(freq):
    try:
        return to_offset(freq)
    except ValueError:
        match = re.fullmatch(r"(\d*)([A-Za-z]+)", freq)
        if not match or match.group(2).lower() not in _MODERN_ALIAS:
            raise
        return to_offset(match.group(1) + _MODERN_ALIAS[match.group(2).lower()])


def time_features_from_frequency_str(freq):
    offset = _to_offset(freq)
    for offset_type, features in FEATURES_BY_OFFSET:
        if isinstance(offset, offset_type):
            return features
    raise RuntimeError("unsupported frequency %r" % freq)


def time_features(dates, freq="h"):
    """dates: pd.DatetimeIndex -> float64 [features, len(dates)] (TSLib's layout)."""
    return np.vstack([np.asarray(feat(dates), dtype=np.float64)
                      for feat in time_features_from_frequency_str(freq)])


def raw_calendar(dates, freq="h"):
    """TSLib's timeenc=0 stamp (embed 'fixed'/'learned'): month, day, weekday, hour[, minute//15]."""
    columns = [dates.month, dates.day, dates.weekday, dates.hour]
    if freq in ("t", "min"):
        columns.append(dates.minute // 15)
    return np.vstack([np.asarray(c, dtype=np.float64) for c in columns])


def stamp(unix_seconds, freq="h", embed="timeF"):
    """Unix seconds (UTC) -> float32 [len, features]: TSLib's data_stamp as the model reads it."""
    dates = pd.to_datetime(np.asarray(unix_seconds, dtype=np.int64), unit="s")
    table = time_features(dates, freq) if embed == "timeF" else raw_calendar(dates, freq)
    return table.transpose(1, 0).astype(np.float32)
