"""Fuzzing the parser: random mutations of the sample configurations (and random text) either load
or raise ConfigError -- never any other exception -- and every issue points inside the file."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from maui_py.cfg import ConfigError, SchedulerConfig, parse_config

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "config").glob("*.cfg"))
TEXTS = [path.read_text(encoding="utf-8") for path in SAMPLES]
ALPHABET = st.sampled_from(list("[]=#\\\t\n \"'@:,;|+-^%*&.0123456789AZaz_é\x00\r") + ["CFG", "[ALL]", "INFINITY"])
WORDS = st.sampled_from(["\n", " ", "=", "\\\n", "USERCFG[", "SRCFG[x] ", "RESERVATIONDEPTH", "BACKFILLPOLICY ",
                         "FSTARGET=", "MAXJOB=", "MAXPROC[USER:", "DAYS=", "10", "-1", ":00", "ON", "@X@", "#"])


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["insert", "delete", "replace", "dup_line", "swap_lines", "truncate"]))
        pos = draw(st.integers(0, len(text)))
        if kind == "insert":
            text = text[:pos] + "".join(draw(st.lists(ALPHABET, min_size=1, max_size=4))) + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 12)):]
        elif kind == "replace":
            text = text[:pos] + draw(ALPHABET) + text[pos + 1:]
        elif kind == "truncate":
            text = text[:pos]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "dup_line":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text


def check(text):
    lines = text.count("\n") + 1
    try:
        config = parse_config(text, "fuzz.cfg")
    except ConfigError as failure:
        assert failure.issues and all(i.is_error for i in failure.issues)
        issues = failure.issues + failure.warnings
    else:
        assert isinstance(config, SchedulerConfig)
        issues = config.warnings
        for _ in config.items():
            pass
    for issue in issues:
        assert 1 <= issue.line <= lines and issue.column >= 1, issue
        assert str(issue).startswith(f"fuzz.cfg:{issue.line}:{issue.column}: ")


def test_samples_exist():
    assert len(SAMPLES) >= 5


@settings(max_examples=200, deadline=None)
@given(mutated())
def test_mutated_samples_load_or_raise_config_error(text):
    check(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(ALPHABET, WORDS), max_size=80).map("".join))
def test_random_text_loads_or_raises_config_error(text):
    check(text)
