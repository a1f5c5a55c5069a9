"""The regular-expression reading of maui.cfg lines (grammar.parse_line / parse_attrs) gives the
same tokens, at the same offsets, as the pyparsing grammar that defines it, on any line; and a
20,000-user file takes no pyparsing call at all (the operation count the speed comes from)."""

from hypothesis import example, given, settings
from hypothesis import strategies as st

from maui_py.cfg import grammar, parse_config

PIECES = st.sampled_from(list("[]=+-.:,_ \tAZaz09é*'\"") + ["USERCFG", "[u1]", "==", "+=", "-=", "MAXJOB=",
                                                             "FSTARGET=10.0-", "MAXPROC[USER:a]=", "[ ]", " = "])
LINES = st.lists(PIECES, max_size=14).map("".join)


def _logical(text):
    lines, _ = grammar.logical_lines(text)
    return lines


@settings(max_examples=600, deadline=None)
@given(LINES)
@example("USERCFG[u1] MAXJOB=4,8 X= a[b]=c MAXPROC[USER:a]==3 =x _.y+=1")
@example("A[ B")
@example("  name[x] = v ")
@example("Q[x]]=a")
def test_line_and_attrs_read_as_the_pyparsing_grammar_does(text):
    for line in _logical(text):
        fast, slow = grammar.parse_line(line), grammar._parse_line_pyparsing(line)
        assert fast == slow
        if fast is not None:
            assert grammar.parse_attrs(fast.value) == grammar._parse_attrs_pyparsing(fast.value)


def test_a_large_credential_file_takes_no_pyparsing_call(monkeypatch):
    calls = []
    real = grammar._grammar

    def counted():
        calls.append(1)
        return real()

    monkeypatch.setattr(grammar, "_grammar", counted)
    text = "".join(f"USERCFG[user{i}] FSTARGET={i % 50}.0- MAXJOB=4,8 PRIORITY={i}\n" for i in range(2000))
    config = parse_config(text)
    assert len(config.objects("USERCFG")) == 2000 and calls == []
    parse_config("QOSCFG[hi] QFLAGS='NOBF'\n")          # a quoted value still takes the grammar
    assert calls


def test_unknown_names_get_a_bounded_number_of_hints(monkeypatch):
    from maui_py.cfg import loader
    calls = []
    real = loader.suggest
    monkeypatch.setattr(loader, "suggest", lambda name: calls.append(name) or real(name))
    text = "".join(f"SITEPARAM{i}X {i}\nRESERVATIONDEPHT {i}\n" for i in range(loader.MAX_HINTS + 50))
    config = parse_config(text, "big.cfg")
    assert len(calls) == loader.MAX_HINTS                   # each name once, and at most MAX_HINTS names
    messages = [w.message for w in config.warnings]
    assert len(messages) == 2 * (loader.MAX_HINTS + 50)     # every line still warned, with its place
    assert messages[1] == "unknown parameter (did you mean RESERVATIONDEPTH?); line ignored"
    assert messages[-2].startswith("unknown parameter (no hint: over")
    assert config.warnings[-1].line == 2 * (loader.MAX_HINTS + 50) and config.warnings[-1].column == 1
